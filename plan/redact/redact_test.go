package redact

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// compiledAtStart counts the rules compiled before any test ran: package
// initialisation must compile none.
var compiledAtStart int

func TestMain(m *testing.M) {
	for i := range compiled {
		if compiled[i].re != nil {
			compiledAtStart++
		}
	}
	os.Exit(m.Run())
}

// TestNothingCompiledAtStart: a program that links the table and records
// nothing compiles no rule, and text with no rule's hint compiles none.
func TestNothingCompiledAtStart(t *testing.T) {
	if compiledAtStart != 0 {
		t.Fatalf("%d rules compiled at package initialisation", compiledAtStart)
	}
}

// The forms each rule catches: in, and what is recorded. Every rule of
// the table has at least one case (TestEveryRuleTested).
var positive = []struct {
	rule, in, want string
}{
	{"authorization header", `curl -H "Authorization: Bearer ghp_x" https://api.example.com`, `curl -H "Authorization: Bearer [redacted]" https://api.example.com`},
	{"authorization header", `curl -H 'authorization: token abc123' x`, `curl -H 'authorization: token [redacted]' x`},
	{"authorization header", `Authorization: Basic dXNlcjpwYXNzd29yZA==`, `Authorization: Basic [redacted]`},
	{"authorization header", `{"headers":{"Authorization":"Bearer abc.def"}}`, `{"headers":{"Authorization":"[redacted]"}}`},
	{"authorization header", `curl -H \"Authorization: Bearer abc\" x`, `curl -H \"Authorization: Bearer [redacted]\" x`},
	{"authorization header", "Proxy-Authorization: Negotiate YIIabc", "Proxy-Authorization: Negotiate [redacted]"},
	{"authorization header", `{\"Authorization\":\"Bearer abc\"}`, `{\"Authorization\":\"[redacted]\"}`},
	{"bearer token", `token sent as Bearer 0123456789abcdefXYZ.`, `token sent as Bearer [redacted].`},
	{"secret assignment", `AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG aws s3 ls`, `AWS_SECRET_ACCESS_KEY=[redacted] aws s3 ls`},
	{"secret assignment", `export GITHUB_TOKEN="abc def"`, `export GITHUB_TOKEN="[redacted]"`},
	{"secret assignment", `DB_PASSWORD='p@ss' ./migrate`, `DB_PASSWORD='[redacted]' ./migrate`},
	{"secret assignment", `PGPASSWORD=hunter2 psql -h db`, `PGPASSWORD=[redacted] psql -h db`},
	{"secret assignment", `{"api_key": "abc123", "name": "x"}`, `{"api_key": "[redacted]", "name": "x"}`},
	{"secret assignment", `{\"client_secret\":\"abc\"}`, `{\"client_secret\":\"[redacted]\"}`},
	{"secret assignment", "db:\n  password: hunter2\n  user: app", "db:\n  password: [redacted]\n  user: app"},
	{"secret assignment", `x_token: abc`, `x_token: [redacted]`},
	{"secret assignment", `X-Api-Key: abc123`, `X-Api-Key: [redacted]`},
	{"secret assignment", `https://h/x?api_key=abc&page=2`, `https://h/x?api_key=[redacted]&page=2`},
	{"secret assignment", `TOKEN=abc ./deploy`, `TOKEN=[redacted] ./deploy`},
	{"secret flag", `mysql --password=hunter2 -u root`, `mysql --password=[redacted] -u root`},
	{"secret flag", `deploy --token abc123 --env prod`, `deploy --token [redacted] --env prod`},
	{"secret flag", `tool --api-key "abc def"`, `tool --api-key "[redacted]"`},
	{"secret flag", `vault --secret=s3cr3t`, `vault --secret=[redacted]`},
	{"mysql -p", `mysql -u root -phunter2 shop`, `mysql -u root -p[redacted] shop`},
	{"mysql -p", `mysqldump -h db -p'my pass' shop`, `mysqldump -h db -p'[redacted]' shop`},
	{"mysql -p", `mariadb -psecret`, `mariadb -p[redacted]`},
	{"sshpass -p", `sshpass -p hunter2 ssh host`, `sshpass -p [redacted] ssh host`},
	{"curl -u", `curl -u admin:hunter2 https://h`, `curl -u admin:[redacted] https://h`},
	{"url password", `git clone https://oauth2:glpat-abcdefghij0123456789@gitlab.com/x.git`, `git clone https://oauth2:[redacted]@gitlab.com/x.git`},
	{"url password", `postgres://app:hunter2@db:5432/shop`, `postgres://app:[redacted]@db:5432/shop`},
	{"url password", `https://:tok@host/`, `https://:[redacted]@host/`},
	{"github token", `remote: ghp_0123456789abcdefghijABCDEFGHIJ012345 is invalid`, `remote: ghp_[redacted] is invalid`},
	{"github token", `github_pat_11AAAAAAA0123456789_abcdefghij`, `github_pat_[redacted]`},
	{"github token", `gho_0123456789abcdefghij0123`, `gho_[redacted]`},
	{"gitlab token", `glpat-abcdefghij0123456789`, `glpat-[redacted]`},
	{"openai or anthropic key", `Incorrect API key provided: sk-abcdefghijklmnopqrstuvwxyz012345`, `Incorrect API key provided: sk-[redacted]`},
	{"openai or anthropic key", `sk-ant-api03-abc_def-ghijklmnopqrstuvwxyz`, `sk-ant-api03-[redacted]`},
	{"openai or anthropic key", `sk-proj-ab_cd-efghijklmnopqrstuvwx`, `sk-proj-[redacted]`},
	{"stripe key", `sk_live_0123456789abcdefABCD`, `sk_live_[redacted]`},
	{"slack token", `xoxb-123456789012-abcdefghij`, `xoxb-[redacted]`},
	{"slack token", `xoxp-1234567890-abc`, `xoxp-[redacted]`},
	{"npm token", `npm_abcdefghijklmnopqrstuvwxyz0123456789`, `npm_[redacted]`},
	{"aws access key id", `key id AKIAIOSFODNN7EXAMPLE denied`, `key id AKIA[redacted] denied`},
	{"aws access key id", `ASIAIOSFODNN7EXAMPLE`, `ASIA[redacted]`},
	{"google api key", `AIzaSyA0123456789abcdefghijklmnopqrstuv`, `AIza[redacted]`},
	{"jwt", `cookie=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop`, `cookie=[redacted]`},
	{"jwt", `got eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop back`, `got [redacted] back`},
	{"cookie", `Cookie: session=abc123; theme=dark`, `Cookie: session=[redacted]; theme=[redacted]`},
	{"cookie", `set-cookie: sid=s3cr3tvalue; Path=/; HttpOnly`, `set-cookie: sid=[redacted]; Path=/; HttpOnly`},
	{"cookie", `curl -b "sessionid=abc123" https://h`, `curl -b "sessionid=[redacted]" https://h`},
	{"cookie", `curl --cookie "auth=xyz; b=2" https://h`, `curl --cookie "auth=[redacted]; b=[redacted]" https://h`},
	{"cookie", `curl -s --cookie=auth=xyz https://h`, `curl -s --cookie=auth=[redacted] https://h`},
	{"login -p", `docker login -u u -p DockerPw123 ghcr.io`, `docker login -u u -p [redacted] ghcr.io`},
	{"login -p", `az login --service-principal -u id -p Az.Secret~1 --tenant t`, `az login --service-principal -u id -p [redacted] --tenant t`},
	{"login -p", `podman login -p=hunter2 quay.io`, `podman login -p=[redacted] quay.io`},
	{"redis-cli -a", `redis-cli -h db -a hunter2 ping`, `redis-cli -h db -a [redacted] ping`},
	{"htpasswd -b", `htpasswd -b f u pw`, `htpasswd -b f u [redacted]`},
	{"htpasswd -b", `htpasswd -c -B -b /etc/nginx/.htpasswd admin hunter2`, `htpasswd -c -B -b /etc/nginx/.htpasswd admin [redacted]`},
	{"htpasswd -b", `htpasswd -nb admin hunter2 > out`, `htpasswd -nb admin [redacted] > out`},
	{"openssl pass:", `openssl enc -aes256 -pass pass:hunter2 -in f`, `openssl enc -aes256 -pass pass:[redacted] -in f`},
	{"openssl pass:", `openssl pkcs12 -passin pass:a1 -passout 'pass:b 2'`, `openssl pkcs12 -passin pass:[redacted] -passout 'pass:[redacted]'`},
	{"zip -P, 7z -p", `zip -P hunter2 -r out.zip dir`, `zip -P [redacted] -r out.zip dir`},
	{"zip -P, 7z -p", `unzip -P hunter2 out.zip`, `unzip -P [redacted] out.zip`},
	{"zip -P, 7z -p", `7z a -phunter2 -mhe out.7z dir`, `7z a -p[redacted] -mhe out.7z dir`},
	{"secret flag", `gpg --batch --passphrase hunter2 -c f`, `gpg --batch --passphrase [redacted] -c f`},
	{"secret flag", `oauth --client_secret X1y2 --id 3`, `oauth --client_secret [redacted] --id 3`},
	{"aws configure set", `aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG`, `aws configure set aws_secret_access_key [redacted]`},
	{"aws configure set", `aws configure set --profile p default.aws_session_token IQoJb3Jp`, `aws configure set --profile p default.aws_session_token [redacted]`},
	{"secret assignment", `//npm.pkg.github.com/:_authToken=0123abcd0123abcd`, `//npm.pkg.github.com/:_authToken=[redacted]`},
	{"secret assignment", `//registry.npmjs.org/:_auth=dXNlcjpw`, `//registry.npmjs.org/:_auth=[redacted]`},
	{"secret assignment", `DB_PASS=hunter2 ./run`, `DB_PASS=[redacted] ./run`},
	{"secret assignment", `MYSQL_PWD=hunter2 mysql`, `MYSQL_PWD=[redacted] mysql`},
	{"secret assignment", `SMTP_PASS: hunter2`, `SMTP_PASS: [redacted]`},
	{"secret assignment", `GOOGLE_CREDENTIALS='{x}' ./run`, `GOOGLE_CREDENTIALS='[redacted]' ./run`},
	{"secret assignment", `accessToken=abc123 refreshToken=def`, `accessToken=[redacted] refreshToken=[redacted]`},
	{"secret assignment", `PASSWORD_MIN_LENGTH=12345`, `PASSWORD_MIN_LENGTH=[redacted]`},
	{"secret assignment", `DB_PASSWORD=truely`, `DB_PASSWORD=[redacted]`},
	{"json credential name", `{"pwd": "hunter2", "user": "bob"}`, `{"pwd": "[redacted]", "user": "bob"}`},
	{"json credential name", `{"credentials":"abc","auth":"dXNl","session":"9f8e7d"}`, `{"credentials":"[redacted]","auth":"[redacted]","session":"[redacted]"}`},
	{"json credential name", `{\"cookie\":\"a=b\"}`, `{\"cookie\":\"[redacted]\"}`},
	{"secret assignment", `{"accessToken": "abc", "refresh_token": "def"}`, `{"accessToken": "[redacted]", "refresh_token": "[redacted]"}`},
	{"slack webhook", `POST https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcdefghijklmnopqrstuvwx failed`, `POST https://hooks.slack.com/services/[redacted] failed`},
	{"hugging face token", `hf_abcdefghijklmnopqrstuvwxyzABCDEFGH`, `hf_[redacted]`},
	{"vault token", `hvs.CAESIJlW1Zyr3-4bMz3a0p_jK9vQ8zRq4oYpHVzM6Kq0aGh4GhYKHGh2cy5BQk`, `hvs.[redacted]`},
	{"vault token", `token s.AbCdEfGhIjKlMnOpQrStUvWx expired`, `token s.[redacted] expired`},
	{"sendgrid key", `SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG`, `SG.[redacted]`},
	{"webhook signing secret", `whsec_abcdefghijklmnopqrstuvwxyz012345`, `whsec_[redacted]`},
	{"digitalocean token", `dop_v1_` + strings.Repeat("0a", 32), `dop_v1_[redacted]`},
	{"shopify token", `shpat_0123456789abcdef0123456789abcdef and shpss_0123456789ABCDEF0123456789ABCDEF`, `shpat_[redacted] and shpss_[redacted]`},
	{"pypi token", `pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0`, `pypi-[redacted]`},
	{"url password", `git push https://x-access-token:ghs_0123456789abcdefghijABCD@github.com/o/r main`, `git push https://x-access-token:[redacted]@github.com/o/r main`},
	{"authorization header", `Authorization: dXNlcjpwYXNz`, `Authorization: [redacted]`},
	{"authorization header", `authorization=abc12345 next`, `authorization=[redacted] next`},
	{"pem private key", "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIB\nAAKCAQEA\n-----END RSA PRIVATE KEY-----\ndone",
		"key:\n-----BEGIN RSA PRIVATE KEY-----[redacted]-----END RSA PRIVATE KEY-----\ndone"},
	{"pem private key", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA", "-----BEGIN OPENSSH PRIVATE KEY-----[redacted]"},
}

// What must stay as it is.
var negative = []string{
	"mkdir -p build/out && cp -p a b",
	"git log -p -3 -- cache.go",
	"mysql -p shop",       // -p alone: mysql asks for the password
	"mysql -P 3306 -h db", // the port
	"mysql -p$(cat ~/.pw) shop; sshpass -p $PW ssh h; curl -u me:$TOKEN x", // variables
	"run `mysql -p` alone, or `sshpass -p`",                                // markdown quoting the flags
	"pip install sk-learn",                                                 // not a key: too short, and a word
	"use sk-learn-compatible-estimators for it",                            // hyphens in the first 20
	"task-0123456789abcdefghijklmnop",                                      // "sk-" inside a word
	"the password is wrong; try again",
	"the bearer of bad news",
	"max_tokens=100 input_tokens=5",
	"ssh-keygen -t ed25519",
	"git@github.com:org/repo.git",
	"http://localhost:8080/path?q=a@b",
	"PASSWORD=$DB_PASSWORD ./run",    // a variable, not its value
	"GITHUB_TOKEN=${{ secrets.GH }}", // the same, in a workflow
	"docker login --password-stdin",
	"docker run -u 1000:1000 image",
	"SyntaxError: Unexpected token '}'",
	"error: invalid token: expected ident",
	"Authorization failed",
	"ghp_short",
	"AKIA is a prefix",
	"PASSWORD_MIN_LENGTH=8 REQUIRE_PASSWORD=true",   // a setting: a small number, a yes or no
	`{"password_required": "no", "token_ttl": 300}`, // the same in JSON
	"DB_PASSWORD=yes API_TOKEN=off SECRET_ROTATION=none",
	"./configure --with-secret-key-file=/etc/key --password-file /run/pw", // a file's name
	"GITHUB_TOKEN_PATH=~/.tok SECRETS_DIR=/run/secrets PASSWORD_FILE=pw.txt",
	"Authorization: failed for user bob",
	"authorization: denied",
	"Authorization: Failed, try again",
	"docker run -p 8080:80 -u 1000 image", // -p of run is a port
	"redis-cli -h db ping",
	"curl -b cookies.txt https://h", // a cookie file
	"htpasswd -D f user",
	"openssl enc -pass env:PW -in f; openssl rsa -passin file:pw.txt",
	"zip -r out.zip dir; 7z x out.7z",
	"s.Close() failed; os.ReadFile: s.abc",
	"this.s.someVeryLongFieldNameIsHere",
	"SG.x is short; whsec_ alone",
	"hf_short pypi-ok",
	"PWD=/home/bob OLDPWD=/tmp",
	"--- PASS: TestCache (0.01s)\nPASS",
	"the session ended; auth failed",
	"aws configure set region us-east-1",
	"FAIL TestCache (30.01s)\nexit status 1",
	"",
}

func TestRules(t *testing.T) {
	for _, c := range positive {
		got := (*Redactor)(nil).String(c.in)
		if got != c.want {
			t.Errorf("%s:\n in  %q\n got %q\nwant %q", c.rule, c.in, got, c.want)
		}
		if again := (*Redactor)(nil).String(got); again != got {
			t.Errorf("%s: redacting twice changed %q to %q", c.rule, got, again)
		}
	}
	for _, in := range negative {
		if got := (*Redactor)(nil).String(in); got != in {
			t.Errorf("redacted what is no credential:\n in  %q\n got %q", in, got)
		}
	}
}

// TestEveryRuleTested: each row of the table has a case that only it
// redacts.
func TestEveryRuleTested(t *testing.T) {
	for _, r := range Table() {
		if !slices.ContainsFunc(positive, func(c struct{ rule, in, want string }) bool { return c.rule == r.Name }) {
			t.Errorf("rule %q has no case", r.Name)
		}
		if r.Keeps == "" || len(r.Hints) == 0 {
			t.Errorf("rule %q says nothing of what it keeps, or has no hint", r.Name)
		}
		for _, h := range r.Hints {
			if h != strings.ToLower(h) {
				t.Errorf("rule %q: hint %q is not lower case", r.Name, h)
			}
		}
	}
	for _, c := range positive {
		if !slices.ContainsFunc(Table(), func(r Rule) bool { return r.Name == c.rule }) {
			t.Errorf("case names no rule: %q", c.rule)
		}
	}
}

// TestSeveralOnOneLine: every credential of a line goes, whichever rule
// finds it, and the lines around stay.
func TestSeveralOnOneLine(t *testing.T) {
	in := "line one\nAWS_SECRET_ACCESS_KEY=abc curl -H 'Authorization: Bearer ghp_0123456789abcdefghijABCDEFGHIJ' https://u:p@h/ && mysql -proot\nlast line"
	want := "line one\nAWS_SECRET_ACCESS_KEY=[redacted] curl -H 'Authorization: Bearer [redacted]' https://u:[redacted]@h/ && mysql -p[redacted]\nlast line"
	if got := (*Redactor)(nil).String(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}

func TestExtra(t *testing.T) {
	r, err := New([]string{`acme-[0-9a-f]{8}`, `(?i)internal-pass (?P<secret>[^\s;]+)`, `x*`})
	if err != nil {
		t.Fatal(err)
	}
	in := "id acme-0123abcd and Internal-Pass hunter2; GITHUB_TOKEN=x"
	want := "id [redacted] and Internal-Pass [redacted]; GITHUB_TOKEN=[redacted]"
	if got := r.String(in); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := r.String(want); got != want {
		t.Errorf("redacting twice: %q", got)
	}
	_, err = New([]string{`ok`, `(`})
	if err == nil || !strings.Contains(err.Error(), "pattern 2") || !strings.Contains(err.Error(), `"("`) {
		t.Errorf("a bad pattern: %v", err)
	}
	if r, err := New(nil); r != nil || err != nil {
		t.Errorf("no patterns: %v, %v", r, err)
	}
}

func TestJSON(t *testing.T) {
	in := `{"command":"curl -H 'Authorization: Bearer abc' https://u:pw@h/","env":{"password":"hunter2","token":"t0k","n":12345678901234567890,"ok":true,"none":null},"list":["AKIAIOSFODNN7EXAMPLE"]}`
	want := `{"command":"curl -H 'Authorization: Bearer [redacted]' https://u:[redacted]@h/","env":{"password":"[redacted]","token":"[redacted]","n":12345678901234567890,"ok":true,"none":null},"list":["AKIA[redacted]"]}`
	got := (*Redactor)(nil).JSON([]byte(in))
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Errorf("not JSON: %s", got)
	}
	settings := `{"password_min_length":"8","require_password":"yes","api_token":"3600","password_file":"/etc/pw","db_pass":"no1"}`
	if got := (*Redactor)(nil).JSON([]byte(settings)); string(got) != `{"password_min_length":"8","require_password":"yes","api_token":"[redacted]","password_file":"/etc/pw","db_pass":"[redacted]"}` {
		t.Errorf("settings and file names: %s", got)
	}
	if got := (*Redactor)(nil).JSON([]byte(`not json TOKEN=abc`)); string(got) != `not json TOKEN=[redacted]` {
		t.Errorf("text that is not JSON: %s", got)
	}
	for _, name := range []string{"api_key", "X-Auth-Token", "client_secret", "PGPASSWORD", "token", "Authorization",
		"pwd", "credentials", "auth", "accessToken", "refresh_token", "session", "sessionToken", "cookie", "DB_PASS", "MYSQL_PWD", "GOOGLE_CREDENTIALS"} {
		if !SecretName(name) {
			t.Errorf("%s names no credential?", name)
		}
	}
	for _, name := range []string{"max_tokens", "keyboard", "command", "description", "monkey", "session_id", "author", "compass", "password_file", "secret_path", "keys_dir"} {
		if SecretName(name) {
			t.Errorf("%s names a credential?", name)
		}
	}
}

// stderr64K is 64 KB of a failing build's output, with credentials in it
// here and there.
func stderr64K() string {
	var b strings.Builder
	for i := 0; b.Len() < 64<<10; i++ {
		switch i % 50 {
		case 7:
			b.WriteString("curl: (22) The requested URL returned error: 401 for https://ci:hunter2@example.com/api (Authorization: Bearer abcdef0123456789abcdef)\n")
		case 31:
			b.WriteString("env: GITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345 AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n")
		default:
			b.WriteString("--- FAIL: TestCacheEviction (0.01s)\n    cache_test.go:42: got 3 entries, want 2; key=user:42 still present\n")
		}
	}
	return b.String()
}

func BenchmarkRedact64K(b *testing.B) {
	s := stderr64K()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		(*Redactor)(nil).String(s)
	}
}

// BenchmarkRedactNoHint is what a change whose text holds no credential's
// hint pays (a commit summary such as "step 3: pending → completed").
func BenchmarkRedactNoHint(b *testing.B) {
	for b.Loop() {
		(*Redactor)(nil).String("step 3: pending → completed")
	}
}

// BenchmarkCompileTable is what the first text holding every rule's hint
// costs once per process: compiling the whole table.
func BenchmarkCompileTable(b *testing.B) {
	for b.Loop() {
		for _, r := range rules {
			_ = mustCompile(r.Pattern)
		}
	}
}

func mustCompile(p string) *regexp.Regexp { return regexp.MustCompile(p) }

func TestCut(t *testing.T) {
	s := "ab " + Mark + " cd"
	for n, want := range map[int]int{0: 0, 2: 2, 3: 3, 4: 3, 12: 3, 13: 13, 14: 14, 99: len(s)} {
		if got := Cut(s, n); got != want {
			t.Errorf("Cut(%q, %d) = %d, want %d", s, n, got, want)
		}
	}
}

// TestLongText: a long text (where hints are also looked for by their
// pairs of bytes) is redacted as its lines are, one by one.
func TestLongText(t *testing.T) {
	s := stderr64K() + "tail: Cookie: sid=abc123; x=1 and s.AbCdEfGhIjKlMnOpQrStUvWx\n"
	var want strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		want.WriteString((*Redactor)(nil).String(l))
	}
	got := (*Redactor)(nil).String(s)
	if got != want.String() {
		t.Error("a long text is redacted otherwise than its lines")
	}
	for _, secret := range []string{"hunter2", "abcdef0123456789abcdef", "0123456789abcdefghij", "IOSFODNN7", "abc123", "AbCdEfGh"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q is left", secret)
		}
	}
}
