package beacons

// diskusage.go is salt/beacons/diskusage.py: an event for each mount
// point matching a configured pattern whose usage reaches its threshold.

import (
	"bufio"
	"os"
	"regexp"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"brine/internal/value"
)

func init() { Register("diskusage", func() Module { return diskusage{} }) }

type diskusage struct{}

func (diskusage) Validate(config any) (bool, string) {
	if !isList(config) {
		return false, "Configuration for diskusage beacon must be a list."
	}
	return true, "Valid beacon configuration"
}

func (diskusage) Beacon(ctx *Context, config any) ([]*value.Map, error) {
	parts, err := mountPoints()
	if err != nil {
		return nil, err
	}
	var ret []*value.Map
	for _, it := range config.(*value.List).Items {
		mounts, ok := it.(*value.Map)
		if !ok || mounts.Len() == 0 {
			continue
		}
		k, threshold := mounts.At(0)
		pat := value.Str(k)
		if !strings.HasSuffix(pat, "$") {
			pat += "$"
		}
		re, err := regexp.Compile("^(?:" + pat + ")")
		if err != nil {
			return nil, err
		}
		for _, mp := range parts {
			if !re.MatchString(mp) {
				continue
			}
			pct, err := diskPercent(mp)
			if err != nil {
				ctx.Log.Warn(mp + " is not a valid mount point.")
				continue
			}
			want, err := percentFloat(threshold)
			if err != nil {
				return nil, err
			}
			if pct >= want {
				ret = append(ret, value.MapOf("diskusage", pct, "mount", mp))
			}
		}
	}
	return ret, nil
}

// mountPoints lists every mount point, in /proc/self/mounts order
// (psutil's disk_partitions(all=True)).
func mountPoints() ([]string, error) {
	f, err := os.Open("/proc/self/mounts")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 {
			out = append(out, unescapeMount(fields[1]))
		}
	}
	return out, sc.Err()
}

// unescapeMount decodes the octal escapes (\040) of /proc/self/mounts.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// diskPercent is psutil's disk_usage(path).percent: the used share of
// the space a non-root user may use, rounded to one decimal.
func diskPercent(path string) (float64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(path, &st); err != nil {
		return 0, err
	}
	total := float64(st.Blocks) * float64(st.Frsize)
	free := float64(st.Bfree) * float64(st.Frsize)
	avail := float64(st.Bavail) * float64(st.Frsize)
	used := total - free
	userTotal := used + avail
	if userTotal == 0 {
		return 0, nil
	}
	return round1(used / userTotal * 100), nil
}

// round1 is Python's round(x, 1).
func round1(x float64) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 1, 64), 64)
	return f
}
