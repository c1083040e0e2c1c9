package code

import (
	"os"
	"testing"

	"github.com/plangit/plangit/repo/repotest"
)

func TestMain(m *testing.M) { os.Exit(repotest.Main(m)) }
