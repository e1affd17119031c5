package testgate

import "testing"

func TestParse(t *testing.T) {
	for v, want := range map[string]Level{"": Full, "full": Full, "fast": Fast, "repro": Repro} {
		if got, err := parse(v); err != nil || got != want {
			t.Errorf("parse(%q) = %v, %v; want %v", v, got, err, want)
		}
	}
	if _, err := parse("slow"); err == nil {
		t.Error(`parse("slow") accepted`)
	}
	if !(Fast < Full && Full < Repro) {
		t.Error("levels out of order")
	}
}

func TestCurrent(t *testing.T) {
	t.Setenv(EnvVar, "repro")
	want := Repro
	if testing.Short() {
		want = Fast
	}
	if got := Current(); got != want {
		t.Errorf("Current() = %v, want %v", got, want)
	}
	if !Enabled(Fast) || Enabled(Repro) != !testing.Short() {
		t.Error("Enabled disagrees with Current")
	}
}
