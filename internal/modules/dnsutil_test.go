package modules

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"brine/internal/value"
)

const dnsZone = `$TTL 86400
$ORIGIN example.com.
@  IN  SOA  ns1.example.com. admin.example.com. (
        2024010101 ; serial
        3H         ; refresh
        15         ; retry
        2W         ; expire
        1D )       ; minimum
@       IN  NS  ns1.example.com.
@       IN  NS  ns2
@       IN  MX  10 mail.example.com.
@       IN  MX  20 mail2.example.com.
www  3600  IN  A  192.0.2.10
v6   3600  IN  AAAA  2001:db8::10
ftp     IN  CNAME  www
`

func TestDNSUtil(t *testing.T) {
	ctx := testContext()
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	if err := os.WriteFile(hosts, []byte("# c\n127.0.0.1 localhost\n10.0.0.1 a b\n10.0.0.1 c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	zone := filepath.Join(dir, "zone")
	if err := os.WriteFile(zone, []byte(dnsZone), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		want string
	}{
		{"dnsutil.parse_hosts", []any{hosts}, nil, "{'127.0.0.1': ['localhost'], '10.0.0.1': ['a', 'b', 'c']}"},
		{"dnsutil.parse_hosts", nil, []any{"hosts", "1.2.3.4 x y\n#no\n"}, "{'1.2.3.4': ['x', 'y']}"},
		{"dnsutil.parse_hosts", []any{filepath.Join(dir, "nope")}, nil, "'Error: hosts data was not found'"},
		{"dnsutil.parse_zone", []any{zone}, nil, "{'TTL': '86400', 'ORIGIN': 'example.com.', 'NETWORK': 'IN', 'SOURCE': 'ns1.example.com.', " +
			"'CONTACT': 'admin@example.com.', 'SERIAL': '2024010101', 'REFRESH': 10800, 'RETRY': 15, 'EXPIRE': 604800, 'MINTTL': 86400, " +
			"'NS': ['ns1.example.com.', 'ns2'], 'MX': [{'priority': '10', 'host': 'mail.example.com.'}], " +
			"'A': {'www.example.com.': {'TARGET': '192.0.2.10', 'TTL': '3600'}}, 'AAAA': {'v6.example.com.': {'TARGET': '2001:db8::10', 'TTL': '3600'}}, " +
			"'CNAME': {'ftp.example.com.': 'www'}}"},
		{"dnsutil.parse_zone", nil, nil, "'Error: Zone data was not found'"},
		{"dnsutil.A", []any{"localhost"}, nil, "['127.0.0.1']"},
		{"dnsutil.A", []any{"bad..invalid"}, nil, "'Unable to resolve bad..invalid'"},
		{"dnsutil.A", []any{"localhost", "192.0.2.53"}, nil, "'This function requires dig, which is not currently available'"},
		{"dnsutil.MX", []any{"example.com"}, nil, "'This function requires dig, which is not currently available'"},
		{"dnsutil.check_ip", []any{"10.0.0.1"}, nil, "'This function requires dig, which is not currently available'"},
	} {
		if tc.fun != "dnsutil.parse_hosts" && tc.fun != "dnsutil.parse_zone" && dnsHasDig() {
			continue // these cases are the machine without dig
		}
		if got := value.Repr(call(t, ctx, tc.fun, tc.args, tc.kw...)); got != tc.want {
			t.Errorf("%s%v%v =\n %s\nwant\n %s", tc.fun, tc.args, tc.kw, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s  string
		ok bool
	}{{"10.0.0.1", true}, {"10.0.0.0/8", true}, {"10.0.0.0/0", false}, {"10.0.0.0/33", false}, {"2001:db8::/32", true},
		{"2001:db8::/4", false}, {"::1", true}, {"host", false}, {"10.0.0.0/x", false}} {
		if dnsIsIP(tc.s) != tc.ok {
			t.Errorf("check_ip(%q) = %v", tc.s, !tc.ok)
		}
	}

	// hosts_append adds the names missing, hosts_remove takes names out.
	got := call(t, ctx, "dnsutil.hosts_append", []any{hosts, "10.0.0.1", "a,d"})
	if got != "The following line was added to "+hosts+":\n10.0.0.1 d" {
		t.Errorf("hosts_append = %v", got)
	}
	if got := call(t, ctx, "dnsutil.hosts_append", []any{hosts, "10.0.0.1", "a"}); got != "No additional hosts were added to "+hosts {
		t.Errorf("hosts_append of a present name = %v", got)
	}
	// As Salt, names are dropped from the list while it is walked: after
	// "a" goes, "b" is skipped and appended although present.
	if got := call(t, ctx, "dnsutil.hosts_append", []any{hosts, "10.0.0.1", "a,b"}); got != "The following line was added to "+hosts+":\n10.0.0.1 b" {
		t.Errorf("hosts_append of present names = %v", got)
	}
	call(t, ctx, "dnsutil.hosts_remove", []any{hosts, "c,b,localhost"})
	data, _ := os.ReadFile(hosts)
	if string(data) != "# c\n10.0.0.1 a\n\n10.0.0.1 d\n" {
		t.Errorf("hosts after remove = %q", data)
	}
}

func TestDNSSerial(t *testing.T) {
	ctx := testContext()
	dir := t.TempDir()
	ctx.Opts.Set("conf_file", filepath.Join(dir, "minion"))
	today := time.Now().Format("20060102") + "01"
	if got := call(t, ctx, "dnsutil.serial", []any{"example.com"}); got != today {
		t.Errorf("serial = %v, want %s", got, today)
	}
	if got := call(t, ctx, "dnsutil.serial", []any{"example.com", true}); got != today {
		t.Errorf("serial update = %v", got)
	}
	next := today[:len(today)-2] + "02"
	if got := call(t, ctx, "dnsutil.serial", []any{"example.com", true}); got != next {
		t.Errorf("second serial update = %v, want %s", got, next)
	}
	if got := call(t, ctx, "dnsutil.serial", []any{"example.com"}); got != next {
		t.Errorf("serial after updates = %v, want %s", got, next)
	}
	data, err := os.ReadFile(filepath.Join(dir, "grains"))
	if err != nil || string(data) != "dnsserial_example.com: '"+next+"'\n" {
		t.Errorf("grains file = %q, %v", data, err)
	}
}
