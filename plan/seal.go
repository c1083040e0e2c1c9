package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// Every file plangit writes (task_plan.md, findings.md, errors.md) ends
// with its seal, a machine line that holds the hash of the rest of the
// file:
//
//	<!-- plangit sum=1a2b3c4d5e6f7a8b -->
//
// Markdown shows nothing of it. A person editing the file leaves it as it
// was, so the seal names the copy the edit was made on, whatever the edit
// did to the rest: repo reads a hand edit against the revision whose copy
// carries it. Readers skip it wherever it stands.
const sealTag = "<!-- plangit sum="

// sealLen is the length of a seal's hash, in hex digits.
const sealLen = 16

// sealed returns the file b holds with its seal line appended.
func sealed(b *strings.Builder) []byte {
	body := b.String()
	sum := sha256.Sum256([]byte(body))
	out := make([]byte, 0, len(body)+len(sealTag)+sealLen+6)
	out = append(out, body...)
	out = append(out, '\n')
	out = append(out, sealTag...)
	out = hex.AppendEncode(out, sum[:sealLen/2])
	return append(out, " -->\n"...)
}

// Seal is the seal a file carries: the hash in its last seal line, or ""
// when it has none (a file written by hand, by another tool, or by a
// plangit from before seals).
func Seal(src []byte) string {
	i := bytes.LastIndex(src, []byte(sealTag))
	for i >= 0 {
		if h, ok := sealAt(src, i); ok {
			return h
		}
		i = bytes.LastIndex(src[:i], []byte(sealTag))
	}
	return ""
}

// sealAt reads the seal line that starts at src[i:], the tag's position,
// when it is a line of its own.
func sealAt(src []byte, i int) (string, bool) {
	start := bytes.LastIndexByte(src[:i], '\n') + 1
	if len(bytes.TrimSpace(src[start:i])) > 0 {
		return "", false
	}
	end := bytes.IndexByte(src[i:], '\n')
	if end < 0 {
		end = len(src) - i
	}
	line := bytes.TrimSpace(src[i : i+end])
	h, ok := bytes.CutPrefix(line, []byte(sealTag))
	if !ok {
		return "", false
	}
	h, ok = bytes.CutSuffix(h, []byte(" -->"))
	if !ok || len(h) != sealLen || !isHex(h) {
		return "", false
	}
	return string(h), true
}

func isHex(b []byte) bool {
	for _, c := range b {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// unseal returns src with each seal line blanked (kept as an empty line,
// so that what a parse error says of a line after it stays true).
func unseal(src []byte) []byte {
	if !bytes.Contains(src, []byte(sealTag)) {
		return src
	}
	out := bytes.Clone(src)
	for i := bytes.Index(out, []byte(sealTag)); i >= 0; {
		next := i + len(sealTag)
		if _, ok := sealAt(out, i); ok {
			start := bytes.LastIndexByte(out[:i], '\n') + 1
			end := bytes.IndexByte(out[i:], '\n')
			if end < 0 {
				end = len(out) - i
			}
			out = append(out[:start], out[i+end:]...)
			next = start
		}
		j := bytes.Index(out[next:], []byte(sealTag))
		if j < 0 {
			break
		}
		i = next + j
	}
	return out
}
