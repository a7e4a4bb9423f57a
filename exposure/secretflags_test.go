package exposure

import "testing"

func TestSecretFlagsAreKnownByTheWordsOfTheirNames(t *testing.T) {
	for name, want := range map[string]bool{
		"password": true, "user-password": true, "passwd": true, "pass": true, "token": true, "debug-token": true,
		"auth_token": true, "secret": true, "client-secret": true, "creds": true, "nkey": true, "seed": true,
		"jwt": true, "private-key": true, "api-key": true, "access.key": true, "apikey": true, "PASSWORD": true,
		"key": false, "keys": false, "kv-key": false, "tlskey": false, "monkey": false, "bypass": false,
		"passive": false, "user": false, "subject": false, "server": false, "keyboard-layout": false,
	} {
		if got := IsSecretFlag(name, nil); got != want {
			t.Errorf("IsSecretFlag(%q) = %v, want %v", name, got, want)
		}
	}
	if !IsSecretFlag("label", []string{"Label"}) {
		t.Error("a flag the operator names is not secret")
	}
}

func TestHideSecretFlagsHidesValuesBeforeTheSeparatorOnly(t *testing.T) {
	argv := []string{"/bin/app", "kv", "put", "--password=hunter2", "--force", "--token=t0ken-value", "--", "--password=positional"}
	display, secrets := hideSecretFlags(argv, nil)
	want := []string{"/bin/app", "kv", "put", "--password=[redacted]", "--force", "--token=[redacted]", "--", "--password=positional"}
	if len(display) != len(want) {
		t.Fatalf("display = %q", display)
	}
	for i := range want {
		if display[i] != want[i] {
			t.Errorf("display[%d] = %q, want %q", i, display[i], want[i])
		}
	}
	if len(secrets) != 2 || secrets[0] != "hunter2" || secrets[1] != "t0ken-value" {
		t.Errorf("secrets = %q", secrets)
	}
	if argv[3] != "--password=hunter2" {
		t.Errorf("argv was modified: %q", argv)
	}
	if d, s := hideSecretFlags([]string{"/bin/app", "--name=x"}, nil); d != nil || s != nil {
		t.Errorf("hideSecretFlags without secrets = %q, %q", d, s)
	}
}
