package usermgr

import "testing"

// TestVerify checks each crypt(3) scheme against hashes of "secret" made
// by the machine's libxcrypt (Python's crypt module) and openssl.
func TestVerify(t *testing.T) {
	for _, h := range []string{
		"$y$j9T$F5Jx5fExrKuPp53xLKQ..1$GmcwIgvdUC9qLWcKCi6gklUa1dM3ziD43YxYNURLKy0",
		"$1$saltsalt$9xy1btjgzLYfb7hivXtC//",
		"$apr1$xyz$HXgo9gtz4gpj4JWTLYmjB0",
		"$2b$04$abcdefghijklmnopqrstuu2r9OfJnfCsdneAXAGHnS4UpFFP8WIrW",
		"abNANd1rDfiNc",
		"$6$rounds=5000$salt$egUxKNxDs8kPfh8iPMNcosMhb2eWah6d3R44JDm5Rj/j/XWR5E33QPd0YmHXoDHOIDR6kL5D3JcQcz0O8FHE00",
		"$5$salt$kpa26zwgX83BPSR8d7w93OIXbFt/d3UOTZaAu5vsTM6",
	} {
		if !Verify("secret", h) {
			t.Errorf("Verify(secret, %s) = false", h)
		}
		if Verify("secreT", h) {
			t.Errorf("Verify(secreT, %s) = true", h)
		}
	}
	for _, h := range []string{"", "!", "!$1$saltsalt$9xy1btjgzLYfb7hivXtC//", "*", "$9$x$y"} {
		if Verify("secret", h) {
			t.Errorf("Verify(secret, %q) = true", h)
		}
	}
}

// TestPiWords: Blowfish's tables are pi's fractional hex digits.
func TestPiWords(t *testing.T) {
	if w := piWordsOf(); w[0] != 0x243f6a88 || w[1] != 0x85a308d3 || w[18+4*256-1] != 0x3ac372e6 {
		t.Errorf("pi words %08x %08x, last %08x", w[0], w[1], w[18+4*256-1])
	}
}
