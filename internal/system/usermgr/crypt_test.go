package usermgr

import "testing"

// TestShaCrypt pins hashes computed by glibc's crypt(3) (Python's
// crypt.crypt) and vectors of the SHA-crypt specification.
func TestShaCrypt(t *testing.T) {
	tests := []struct{ pw, setting, want string }{
		{"secret", "$6$saltsalt", "$6$saltsalt$TVLlQcbpFVof5W3Yz4DTP6gRstiNuHwwTt6GLc1E5n0U0aDehy0S5knV8wiOQSpT0Y77vwPZN.Pq.H91p5hVO1"},
		{"secret", "$5$saltsalt", "$5$saltsalt$0IyaXrmV7.sGNS6tirgqHLqX/G.FBvgkYA.lpPdS5sA"},
		{"", "$6$abc", ""},
		{"Hello world!", "$6$rounds=10000$saltstringsaltstring", "$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v."},
		{"This is just a test", "$5$rounds=5000$toolongsaltstring", "$5$rounds=5000$toolongsaltstrin$Un/5jzAHMgOGZ5.mWJpuVolil07guHPvOW8mGRcvxa5"},
	}
	for _, tc := range tests {
		got := ShaCrypt(tc.pw, tc.setting)
		if tc.want != "" && got != tc.want {
			t.Errorf("ShaCrypt(%q, %q) = %q, want %q", tc.pw, tc.setting, got, tc.want)
		}
		if !VerifyHash(tc.pw, got) {
			t.Errorf("VerifyHash(%q, %q) = false", tc.pw, got)
		}
	}
	h, err := GenHash("pw", "", "sha512")
	if err != nil || len(h) != 3+16+1+86 || !VerifyHash("pw", h) || VerifyHash("other", h) {
		t.Errorf("GenHash = %q, %v", h, err)
	}
}
