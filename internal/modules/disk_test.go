package modules

import (
	"strings"
	"testing"

	"brine/internal/execmod"
	"brine/internal/value"
)

// cmdRecorder replaces cmd.run, cmd.run_all and cmd.retcode in a copy of
// the registry: the commands are recorded, not run (for functions that
// would change the machine), and answered with out and rc.
type cmdRecorder struct {
	cmds []string
	out  string
	rc   int64
}

func (r *cmdRecorder) context() *execmod.Context {
	ctx := testContext()
	reg := execmod.Default.Clone()
	record := func(kind string) execmod.Func {
		return func(_ *execmod.Context, args []any, kwargs *value.Map) (any, error) {
			cmd := args[0]
			if l, ok := cmd.(*value.List); ok {
				var parts []string
				for _, it := range l.Items {
					parts = append(parts, value.Str(it))
				}
				cmd = strings.Join(parts, " ")
			}
			r.cmds = append(r.cmds, value.Str(cmd))
			switch kind {
			case "run":
				return r.out, nil
			case "retcode":
				return r.rc, nil
			}
			return value.MapOf("pid", int64(1), "retcode", r.rc, "stdout", r.out, "stderr", "boom"), nil
		}
	}
	reg.Replace("cmd.run", record("run"), "")
	reg.Replace("cmd.run_all", record("run_all"), "")
	reg.Replace("cmd.retcode", record("retcode"), "")
	ctx.Registry = reg
	return ctx
}

func TestDiskReal(t *testing.T) {
	ctx := testContext()
	u := call(t, ctx, "disk.usage", nil).(*value.Map)
	root, ok := u.Get("/")
	if !ok {
		t.Fatalf("usage has no / in %s", value.Repr(u))
	}
	if cap, _ := root.(*value.Map).Get("capacity"); !strings.HasSuffix(value.Str(cap), "%") {
		t.Errorf("usage / = %s", value.Repr(root))
	}
	iu := call(t, ctx, "disk.inodeusage", nil).(*value.Map)
	if _, ok := iu.Get("/"); !ok {
		t.Errorf("inodeusage has no /: %s", value.Repr(iu))
	}
	if p := call(t, ctx, "disk.percent", []any{"/"}); !strings.HasSuffix(value.Str(p), "%") {
		t.Errorf("percent / = %v", p)
	}
	if p := call(t, ctx, "disk.percent", []any{"/no/such/mount"}); value.Repr(p) != "{}" {
		t.Errorf("percent of an unknown mount = %s", value.Repr(p))
	}
	if all := call(t, ctx, "disk.percent", nil).(*value.Map); all.Len() != u.Len() {
		t.Errorf("percent has %d mounts, usage %d", all.Len(), u.Len())
	}
	if _, err := ctx.Call("disk.usage", []any{"z"}, value.NewMap(0)); err == nil || err.Error() != "Invalid flag passed to disk.usage" {
		t.Errorf("usage with a bad flag: %v", err)
	}
	if _, err := ctx.Call("disk.inodeusage", []any{"q"}, value.NewMap(0)); err == nil || err.Error() != "Invalid flag passed to disk.inodeusage" {
		t.Errorf("inodeusage with a bad flag: %v", err)
	}
	if a := call(t, ctx, "disk.usage", []any{"a"}).(*value.Map); a.Len() < u.Len() {
		t.Errorf("usage -a lists fewer mounts (%d) than usage (%d)", a.Len(), u.Len())
	}
	if _, ok := call(t, ctx, "disk.blkid", nil).(*value.Map); !ok {
		t.Error("blkid is not a dict")
	}
	// /proc's device "proc" is neither a block device nor a path: lsblk
	// and df -T both fail, and Salt answers "".
	if ft := call(t, ctx, "disk.get_fstype_from_path", []any{"/proc/self"}); ft != "" {
		t.Errorf("fstype of /proc = %v", ft)
	}
	if ft := call(t, ctx, "disk.get_fstype_from_path", []any{"/"}); value.Str(ft) == "" {
		t.Errorf("fstype of / is empty")
	}
}

func TestDiskParsers(t *testing.T) {
	out := "/dev/vda1: UUID=\"1234-ab\" BLOCK_SIZE=\"4096\" TYPE=\"ext4\" PARTUUID=\"x-01\"\n/dev/loop0: TYPE=\"squashfs\"\n"
	if got := value.Repr(diskParseBlkid(out)); got != "{'/dev/vda1': {'UUID': '1234-ab', 'BLOCK_SIZE': '4096', 'TYPE': 'ext4', 'PARTUUID': 'x-01'}, '/dev/loop0': {'TYPE': 'squashfs'}}" {
		t.Errorf("blkid = %s", got)
	}
	df := []string{"Filesystem     1024-blocks  Used Available Capacity Mounted on",
		"/dev/vda1 100 50 50 50% /", "map auto_home 0 0 0 100% /home", "/dev/mapper/very-long-name-that-wraps", "  200 20 180 10% /data", ""}
	if got := value.Repr(diskParseUsage(df)); got != "{'/': {'filesystem': '/dev/vda1', '1K-blocks': '100', 'used': '50', 'available': '50', 'capacity': '50%'}, "+
		"'/home': {'filesystem': 'map auto_home', '1K-blocks': '0', 'used': '0', 'available': '0', 'capacity': '100%'}, "+
		"'/data': {'filesystem': '/dev/mapper/very-long-name-that-wraps', '1K-blocks': '200', 'used': '20', 'available': '180', 'capacity': '10%'}}" {
		t.Errorf("usage = %s", got)
	}
}

// TestDiskCommands checks the commands of the functions that change
// disks, without running them.
func TestDiskCommands(t *testing.T) {
	for _, tc := range []struct {
		fun  string
		args []any
		kw   []any
		out  string
		rc   int64
		want string
		cmds string
	}{
		{"disk.wipe", []any{"/dev/sdz"}, nil, "", 0, "True", "wipefs -a /dev/sdz"},
		{"disk.wipe", []any{"/dev/sdz"}, nil, "", 1, "False", "wipefs -a /dev/sdz"},
		{"disk.resize2fs", []any{"/dev/sdz1"}, nil, "", 0, "True", "resize2fs /dev/sdz1"},
		{"disk.resize2fs", []any{"/dev/sdz1"}, nil, "", 1, "None", "resize2fs /dev/sdz1"},
		{"disk.format", []any{"/dev/sdz1"}, nil, "", 0, "True", "mkfs -t ext4 /dev/sdz1|sync"},
		{"disk.format", []any{"/dev/sdz1", "xfs"}, []any{"inode_size", int64(512), "force", true}, "", 0, "True", "mkfs -t xfs -i size=512 -f /dev/sdz1|sync"},
		{"disk.format", []any{"/dev/sdz1", "ext3"}, []any{"inode_size", int64(256), "lazy_itable_init", int64(0), "force", true}, "", 2, "False",
			"mkfs -t ext3 -i 256 -E lazy_itable_init=0 -F /dev/sdz1|sync"},
		{"disk.format", []any{"/dev/sdz1", "vfat"}, []any{"fat", int64(32)}, "", 0, "True", "mkfs -t vfat -F 32 /dev/sdz1|sync"},
		{"disk.dump", []any{"/dev/sdz"}, []any{"args", "getro,getsz"}, "0\n2048\n512\n512\n512\n0\n0\n255\n1048576\n1048576\n256\n256\n", 0, "{'getro': '0', 'getsz': '2048'}",
			"blockdev --getro --getsz --getss --getpbsz --getiomin --getioopt --getalignoff --getmaxsect --getsize --getsize64 --getra --getfra /dev/sdz"},
		{"disk.dump", []any{"/dev/sdz"}, nil, "", 1, "False",
			"blockdev --getro --getsz --getss --getpbsz --getiomin --getioopt --getalignoff --getmaxsect --getsize --getsize64 --getra --getfra /dev/sdz"},
		{"disk.tune", []any{"/dev/sdz"}, []any{"read-ahead", int64(512), "read-only", true}, "1\n2048\n512\n512\n512\n0\n0\n255\n1048576\n1048576\n512\n256\n", 0,
			"{'getra': '512', 'getro': '1'}",
			"blockdev --setra 512 --read-only /dev/sdz|blockdev --getro --getsz --getss --getpbsz --getiomin --getioopt --getalignoff --getmaxsect --getsize --getsize64 --getra --getfra /dev/sdz"},
	} {
		r := &cmdRecorder{out: tc.out, rc: tc.rc}
		ctx := r.context()
		got := call(t, ctx, tc.fun, tc.args, tc.kw...)
		if value.Repr(got) != tc.want || strings.Join(r.cmds, "|") != tc.cmds {
			t.Errorf("%s%v%v = %s with %q, want %s with %q", tc.fun, tc.args, tc.kw, value.Repr(got), r.cmds, tc.want, tc.cmds)
		}
	}
}

func TestDiskToolParsers(t *testing.T) {
	hd := "\n/dev/sda:\n multcount     =  0 (off)\n readonly      =  0 (off)\n readahead     = 256 (on)\n" +
		" geometry      = 121601/255/63, sectors = 1953525168, start = 0\n max sectors   = 1953525168/1953525168, HPA is disabled\n" +
		" Model Number:       WDC WD10EZEX\n Serial Number is: XYZ\n"
	want := "{'multcount': [0, 'off'], 'readonly': [0, 'off'], 'readahead': [256, 'on'], " +
		"'geometry': [121601, 255, 63, {'sectors': '1953525168', 'start': '0'}], 'max_sectors': [1953525168, 1953525168, 'HPA is disabled'], " +
		"'model_number': 'WDC WD10EZEX', 'serial_number': 'XYZ'}"
	if got := value.Repr(diskParseHdparm("/dev/sda", hd)); got != want {
		t.Errorf("hdparm =\n %s\nwant\n %s", got, want)
	}
	smart := "smartctl 7.3\n=== START OF READ SMART DATA SECTION ===\nID# ATTRIBUTE_NAME          FLAG     VALUE WORST THRESH TYPE      UPDATED  WHEN_FAILED RAW_VALUE\n" +
		"  1 Raw_Read_Error_Rate     0x002f   200   200   051    Pre-fail  Always       -       0\n" +
		"194 Temperature_Celsius     0x0022   112   102   000    Old_age   Always       -       35 (Min/Max 20/45)\n" +
		"199 UDMA_CRC_Error_Count    0x0032   200   200   000    Old_age   Always       -       1 2\n\n"
	if got := value.Repr(diskParseSmart(smart, nil, value.NewList("value", "raw_value"))); got !=
		"{1: {'value': 200, 'raw_value': 0}, 194: {'value': 112, 'raw_value': '35 (Min/Max 20/45)'}, 199: {'value': 200, 'raw_value': [1, 2]}}" {
		t.Errorf("smart = %s", got)
	}
	if got := value.Repr(diskParseSmart(smart, value.NewList(int64(1)), nil)); got !=
		"{1: {'attribute_name': 'Raw_Read_Error_Rate', 'flag': '0x002f', 'value': 200, 'worst': 200, 'thresh': 51, 'type': 'Pre-fail', 'updated': 'Always', 'when_failed': '-', 'raw_value': 0}}" {
		t.Errorf("smart attribute 1 = %s", got)
	}
	iostat := "Linux 6.1 (host)\n\navg-cpu:  %user   %nice %system\n           1.00    0.00    0.50\n\nDevice:  rrqm/s  wrqm/s\nsda      0.10    1.25\nsdb      0.00    0.00\n\n" +
		"avg-cpu:  %user   %nice %system\n           2.00    0.00    0.51\n\nDevice:  rrqm/s  wrqm/s\nsda      0.20    1.26\n\n"
	got, err := diskParseIostat(iostat)
	if err != nil || value.Repr(got) != "{'sys': {'%user': 1.5, '%nice': 0.0, '%system': 0.5}, 'sda': {'rrqm/s': 0.15, 'wrqm/s': 1.26}, 'sdb': {'rrqm/s': 0.0, 'wrqm/s': 0.0}}" {
		t.Errorf("iostat = %s, %v", value.Repr(got), err)
	}
	ctx := testContext()
	for _, fun := range []string{"disk.hdparms", "disk.hpa"} {
		if _, err := ctx.Call(fun, []any{"sda"}, value.NewMap(0)); err == nil || err.Error() != "The 'hdparm' binary was not found in $PATH." {
			t.Errorf("%s without hdparm: %v", fun, err)
		}
	}
	if _, err := ctx.Call("disk.iostat", nil, value.NewMap(0)); err == nil || err.Error() != "The 'iostat' binary was not found in $PATH." {
		t.Errorf("iostat without iostat: %v", err)
	}
}
