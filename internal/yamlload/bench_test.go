package yamlload

import (
	"fmt"
	"strings"
	"testing"
)

// renderedSLS returns a formula-style SLS of about n lines, the kind of
// text the Jinja stage hands to the YAML loader.
func renderedSLS(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() == 0 || strings.Count(b.String(), "\n") < n; i++ {
		fmt.Fprintf(&b, `pkg_%[1]d:
  pkg.installed:
    - name: package-%[1]d
    - version: 1.%[1]d.0
    - refresh: True
/etc/app/conf-%[1]d.conf:
  file.managed:
    - source: salt://app/files/conf.jinja
    - template: jinja
    - mode: 0644
    - user: root
    - makedirs: yes
    - context:
        port: %[2]d
        hosts: [alpha, beta, "gamma delta"]
        limits: {cpu: 2.5, mem: 1_024}
    - require:
      - pkg: pkg_%[1]d
service_%[1]d:
  service.running:
    - name: app-%[1]d
    - enable: on
    - watch:
      - file: /etc/app/conf-%[1]d.conf
    - onchanges_in:
      - cmd: reload_%[1]d
reload_%[1]d:
  cmd.run:
    - name: |
        systemctl daemon-reload
        echo done %[1]d
    - unless: test -f /run/app-%[1]d.pid
`, i, 8000+i)
	}
	return []byte(b.String())
}

func BenchmarkLoad(b *testing.B) {
	data := renderedSLS(900)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Load(data, "bench.sls"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDump(b *testing.B) {
	v, err := Load(renderedSLS(900), "bench.sls")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Dump(v, DumpOptions{DefaultFlowStyle: FlowStyle(false), AllowUnicode: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	words := []string{"nginx", "0644", "yes", "1.18.0", "/etc/x", "8080", "2.5", "salt://a/b", "~", "True"}
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			Resolve(w)
		}
	}
}
