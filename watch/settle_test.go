package watch

import (
	"fmt"
	"testing"
	"time"
)

// version is a distinct state of the one watched file.
func version(n int) fileStates {
	return fileStates{"/bin/app": {err: fmt.Sprint("version ", n)}}
}

// The defaults poll every second and debounce for half of one: a timer
// armed by one poll fires before the next, so stillness is only known once
// a poll has seen it.
func TestABinaryChangingAtEveryPollIsNeverReloaded(t *testing.T) {
	st := settling{loaded: version(0), seen: version(0)}
	at := time.Unix(0, 0)
	for n := 1; n <= 100; n++ {
		at = at.Add(DefaultInterval)
		if changed := st.poll(version(n), at, DefaultDebounce); changed != nil {
			t.Fatalf("poll %d reloaded %v while the binary still changes at every poll", n, changed)
		}
	}
	at = at.Add(DefaultInterval)
	if changed := st.poll(version(100), at, DefaultDebounce); len(changed) != 1 {
		t.Errorf("once a poll found the binary still, changed = %v, want its path", changed)
	}
	at = at.Add(DefaultInterval)
	if changed := st.poll(version(100), at, DefaultDebounce); changed != nil {
		t.Errorf("a reloaded binary was reloaded again: %v", changed)
	}
}

func TestAChangeIsReloadedOnlyAfterBeingStillForTheDebounce(t *testing.T) {
	st := settling{loaded: version(0), seen: version(0)}
	at := time.Unix(0, 0)
	debounce := 3 * time.Second
	if st.poll(version(1), at, debounce) != nil {
		t.Fatal("the poll that saw the change reloaded")
	}
	for i := 1; i < 3; i++ {
		if changed := st.poll(version(1), at.Add(time.Duration(i)*time.Second), debounce); changed != nil {
			t.Fatalf("%ds after the change (debounce %s), reloaded %v", i, debounce, changed)
		}
	}
	if changed := st.poll(version(1), at.Add(debounce), debounce); len(changed) != 1 {
		t.Errorf("still for the debounce: changed = %v, want its path", changed)
	}
}

func TestAChangeUndoneBeforeItSettledIsNotReloaded(t *testing.T) {
	st := settling{loaded: version(0), seen: version(0)}
	at := time.Unix(0, 0)
	st.poll(version(1), at, DefaultDebounce)
	st.poll(version(0), at.Add(DefaultInterval), DefaultDebounce)
	if changed := st.poll(version(0), at.Add(2*DefaultInterval), DefaultDebounce); changed != nil {
		t.Errorf("changed and changed back, yet reloaded %v", changed)
	}
}

func TestSIGHUPTakesTheFilesAsTheyAreAsLoaded(t *testing.T) {
	st := settling{loaded: version(0), seen: version(0)}
	at := time.Unix(0, 0)
	st.poll(version(1), at, DefaultDebounce)
	st.reloading(version(1))
	if changed := st.poll(version(1), at.Add(DefaultInterval), DefaultDebounce); changed != nil {
		t.Errorf("the change SIGHUP reloaded was reloaded again: %v", changed)
	}
}
