package states

// archive.go is salt/states/archive.py: archive.extracted for tar
// (plain, gzip, bzip2, xz) and zip archives, read and extracted natively
// (xz through the xz command), with source_hash verification before
// anything is touched, enforce_toplevel, if_missing, overwrite, force,
// clean and user/group ownership.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"brine/internal/fileops"
	"brine/internal/statemod"
	"brine/internal/system/archive"
	"brine/internal/value"
)

func init() {
	statemod.Register(&statemod.Function{Name: "archive.extracted",
		Params: []statemod.Param{statemod.Req("name"), statemod.Req("source"), statemod.Opt("source_hash", nil),
			statemod.Opt("source_hash_name", nil), statemod.Opt("source_hash_update", false),
			statemod.Opt("skip_files_list_verify", false), statemod.Opt("skip_verify", false),
			statemod.Opt("password", nil), statemod.Opt("options", nil), statemod.Opt("list_options", nil),
			statemod.Opt("force", false), statemod.Opt("overwrite", false), statemod.Opt("clean", false),
			statemod.Opt("clean_parent", false), statemod.Opt("user", nil), statemod.Opt("group", nil),
			statemod.Opt("if_missing", nil), statemod.Opt("trim_output", false), statemod.Opt("use_cmd_unzip", nil),
			statemod.Opt("extract_perms", true), statemod.Opt("enforce_toplevel", true),
			statemod.Opt("enforce_ownership_on", nil), statemod.Opt("archive_format", nil), statemod.Opt("use_etag", false)},
		Kwargs: true,
		Doc:    "Ensure that an archive (tar, tar.gz, tar.bz2, tar.xz, zip) is extracted to a directory.",
		Run:    archiveExtracted})
}

// archiveData reads the archive source: a local path, salt:// or
// http(s)://. A remote archive is kept in the minion cache
// (cachedir/extrn_files/<saltenv>/<host>/<path>, as cp.cache_file does)
// and downloaded again only when want (the source_hash, "" for none)
// does not match the cached copy.
func archiveData(c *statemod.Call, source, wantType, want string) ([]byte, error) {
	if !isRemote(source) {
		return readSource(c, source)
	}
	cache := archiveCachePath(c, source)
	if cache != "" {
		if want != "" {
			if data, err := os.ReadFile(cache); err == nil && hashOf(wantType, data) == want {
				return data, nil
			}
		}
	}
	data, err := fetchRemote(source)
	if err != nil {
		return nil, err
	}
	if cache != "" && value.Truthy(kwOr(c, "keep_source", kwOr(c, "keep", true))) {
		if os.MkdirAll(filepath.Dir(cache), 0o700) == nil {
			writeFileAtomic(cache, data)
		}
	}
	return data, nil
}

func archiveExtracted(c *statemod.Call) (*value.Map, error) {
	ret := statemod.Ret(c.Get("name"), false, "")
	name := c.Name()
	if !filepath.IsAbs(name) {
		ret.Set("comment", name+" is not an absolute path")
		return ret, nil
	}
	name = strings.TrimRight(name, "/")
	if isFile(name) {
		ret.Set("comment", name+" exists and is not a directory")
		return ret, nil
	}
	name += "/"
	ifMissing := c.Str("if_missing")
	if ifMissing != "" && !filepath.IsAbs(ifMissing) {
		ret.Set("comment", "Value for 'if_missing' is not an absolute path")
		return ret, nil
	}
	if ifMissing != "" && lexists(ifMissing) {
		ret.Set("result", true)
		ret.Set("comment", "Path "+ifMissing+" exists")
		return ret, nil
	}
	uid, gid := -1, -1
	if c.Has("user") {
		u, ok := fileops.ResolveUID(c.Get("user"))
		if !ok {
			ret.Set("comment", "User "+c.Str("user")+" does not exist")
			return ret, nil
		}
		uid = u
	}
	if c.Has("group") {
		g, ok := fileops.ResolveGID(c.Get("group"))
		if !ok {
			ret.Set("comment", "Group "+c.Str("group")+" does not exist")
			return ret, nil
		}
		gid = g
	}
	source, err := sourceList(c, c.Get("source"))
	if err != nil || source == "" {
		ret.Set("comment", fmt.Sprintf("Invalid source \"%s\"", value.Str(c.Get("source"))))
		return ret, nil
	}
	if !isRemote(source) && !strings.HasPrefix(source, "salt://") && !strings.HasPrefix(source, "/") && !strings.HasPrefix(source, "file://") {
		ret.Set("comment", fmt.Sprintf("Invalid source \"%s\"", source))
		return ret, nil
	}
	if isRemote(source) && !c.Has("source_hash") && !c.Bool("skip_verify") {
		ret.Set("comment", "Unable to verify upstream hash of source file "+source+", please set source_hash or set skip_verify to True")
		return ret, nil
	}
	// The source hash is verified before anything is extracted.
	var typ, sum string
	if sh := c.Str("source_hash"); sh != "" && !c.Bool("skip_verify") {
		if isRemote(sh) {
			hd, err := fetchRemote(sh)
			if err != nil {
				ret.Set("comment", "Failed to cache "+sh+": "+err.Error())
				return ret, nil
			}
			f := strings.Fields(string(hd))
			if len(f) == 0 || fileops.HashTypeOfLen(len(f[0])) == "" {
				ret.Set("comment", "Source hash "+sh+" format is invalid.")
				return ret, nil
			}
			typ, sum = fileops.HashTypeOfLen(len(f[0])), strings.ToLower(f[0])
			base := source[strings.LastIndexByte(source, '/')+1:]
			for _, line := range strings.Split(string(hd), "\n") {
				lf := strings.Fields(line)
				if len(lf) > 1 && strings.TrimPrefix(lf[len(lf)-1], "*") == base && fileops.HashTypeOfLen(len(lf[0])) != "" {
					typ, sum = fileops.HashTypeOfLen(len(lf[0])), strings.ToLower(lf[0])
				}
			}
		} else if typ, sum, err = sourceSum(c, sh, name, source); err != nil {
			ret.Set("comment", err.Error())
			return ret, nil
		}
	}
	data, err := archiveData(c, source, typ, sum)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			ret.Set("comment", "Source file '"+source+"' does not exist")
		} else {
			ret.Set("comment", "Failed to cache "+source+": "+err.Error())
		}
		return ret, nil
	}
	if sum != "" {
		if got := hashOf(typ, data); got != sum {
			ret.Set("comment", source+" does not match the desired source_hash "+sum)
			return ret, nil
		}
	}
	format := strings.ToLower(c.Str("archive_format"))
	if format == "" {
		format = archive.DetectFormat(source, data)
		if format == "" {
			ret.Set("comment", "Could not guess archive_format from the value of the 'source' argument. Please set this archive_format to one of the following: rar, tar, zip")
			return ret, nil
		}
	}
	opts, stop, err := archiveOptionChecks(c, ret, format)
	if stop || err != nil {
		return ret, err
	}
	cached := archiveLocalPath(source)
	if cached == "" && isRemote(source) {
		cached = archiveCachePath(c, source)
	}
	hashForm := value.Str(c.Opt("hash_type"))
	if hashForm == "" || hashForm == "None" {
		hashForm = "sha256"
	}
	existingSum := ""
	if cached != "" && archiveCacheDir(c) != "" {
		existingSum = readArchiveHash(archiveHashFile(archiveCacheDir(c), cached), hashForm)
		if c.Has("source_hash") && c.Bool("source_hash_update") && !c.Bool("skip_verify") {
			updateArchiveHash(archiveHashFile(archiveCacheDir(c), cached), cached, hashForm)
		}
	}
	contents, readErr := archive.Read(format, data)
	if readErr != nil {
		var stop bool
		if contents, stop, err = listWithModule(c, ret, opts, format, source, data); stop || err != nil {
			return ret, err
		}
	}
	if opts.strip > 0 && readErr == nil {
		contents = stripContents(contents, opts.strip)
	}
	if c.Bool("enforce_toplevel") && (len(contents.TopDirs) > 1 || len(contents.TopFiles) > 0) {
		ret.Set("comment", fmt.Sprintf("Archive does not have a single top-level directory. To allow this archive to be extracted, set 'enforce_toplevel' to False. To avoid a '%s-bomb' it may also be advisable to set a top-level directory by adding it to the 'name' value (for example, setting 'name' to %s instead of %s).",
			format, filepath.Join(name, "some_dir"), name))
		return ret, nil
	}
	if c.Bool("clean") && c.Bool("clean_parent") {
		ret.Set("comment", "Only one of 'clean' and 'clean_parent' can be set to True")
		return ret, nil
	}
	changes := getv(ret, "changes").(*value.Map)
	needed := c.Bool("overwrite")
	missing := false
	var incorrect []string
	check := func(list []string, ok func(os.FileMode) bool) {
		for _, p := range list {
			st, err := os.Lstat(strings.TrimRight(filepath.Join(name, p), "/"))
			if err != nil {
				if os.IsNotExist(err) {
					needed, missing = true, true
				}
				continue
			}
			if !ok(st.Mode()) {
				incorrect = append(incorrect, p)
			}
		}
	}
	check(contents.Dirs, func(m os.FileMode) bool { return m.IsDir() })
	check(contents.Files, func(m os.FileMode) bool { return m&os.ModeSymlink == 0 && !m.IsDir() })
	check(contents.Links, func(m os.FileMode) bool { return m&os.ModeSymlink != 0 })
	clean := c.Bool("clean") || c.Bool("clean_parent")
	if len(incorrect) > 0 {
		var lst strings.Builder
		lst.WriteString("\n\n")
		for i, p := range incorrect {
			if i > 0 {
				lst.WriteString("\n")
			}
			lst.WriteString("- " + p)
		}
		comment := "The below paths (relative to " + name + ") exist, but are the incorrect type (file instead of directory, symlink instead of file, etc.)."
		if c.Test && c.Bool("clean") {
			ret.Set("result", nil)
			ret.Set("comment", comment+" Since the 'clean' option is enabled, the destination paths would be cleared and the archive would be extracted."+lst.String())
			return ret, nil
		}
		if c.Test && c.Bool("clean_parent") {
			ret.Set("result", nil)
			ret.Set("comment", comment+" Since the 'clean_parent' option is enabled, the destination parent directory would be removed first and then re-created and the archive would be extracted")
			return ret, nil
		}
		if !clean {
			if !c.Bool("force") {
				ret.Set("comment", comment+" To proceed with extraction, set 'force' to True. Note that this will remove these paths before extracting."+lst.String())
				return ret, nil
			}
			removed := value.NewList()
			for _, p := range incorrect {
				full := filepath.Join(name, p)
				if err := os.RemoveAll(strings.TrimRight(full, "/")); err == nil {
					removed.Append(full)
					needed = true
				}
			}
			if len(removed.Items) > 0 {
				changes.Set("removed", removed)
			}
		}
	}
	hashTrigger := false
	if !needed && c.Bool("source_hash_update") && existingSum != "" &&
		readArchiveHash(archiveHashFile(archiveCacheDir(c), cached), hashForm) != existingSum {
		needed, hashTrigger = true, true
	}
	explain := func(s string) string {
		if hashTrigger {
			return s + ", due to source_hash update"
		}
		if missing {
			return s + ", due to absence of one or more files/dirs"
		}
		return s
	}
	var files []string
	var filesVal any
	createdDest := false
	if needed {
		if c.Test {
			ret.Set("result", nil)
			cm := "Archive " + source + " would be extracted to " + name
			if c.Bool("clean") {
				cm += ", after cleaning destination path(s)"
			}
			ret.Set("comment", explain(cm))
			return ret, nil
		}
		if c.Bool("clean_parent") {
			if lexists(strings.TrimRight(name, "/")) && os.RemoveAll(strings.TrimRight(name, "/")) == nil {
				changes.Set("removed", "Directory "+name+" was removed prior to the extraction")
			}
		} else if c.Bool("clean") {
			removed := value.NewList()
			for _, p := range append(append([]string(nil), contents.TopDirs...), contents.TopFiles...) {
				full := name + p
				if lexists(strings.TrimRight(full, "/")) && os.RemoveAll(strings.TrimRight(full, "/")) == nil {
					removed.Append(full)
				}
			}
			if len(removed.Items) > 0 {
				changes.Set("removed", removed)
			}
		}
		if !isDir(name) {
			if err := os.MkdirAll(name, 0o755); err != nil {
				ret.Set("comment", err.Error())
				return ret, nil
			}
			createdDest = true
			// Salt creates it with file.directory given the user only:
			// the group stays the one it was created with.
			if uid != -1 {
				os.Chown(name, uid, -1)
			}
		}
		switch {
		case format == "tar" && opts.given:
			ok, err := opts.extractTar(c, ret, source, data, name)
			if !ok || err != nil {
				return ret, err
			}
			filesVal = opts.files
		case format == "zip" && opts.cmdUnzip:
			ok, err := opts.extractCmdUnzip(c, ret, source, data, name)
			if !ok || err != nil {
				return ret, err
			}
			filesVal = opts.files
		case readErr != nil:
			// what archive.list could list (with list_options) brine
			// cannot extract itself either
			if createdDest {
				os.RemoveAll(name)
			}
			ret.Set("comment", readErr.Error())
			return ret, nil
		default:
			files, err = contents.Extract(name, c.Bool("extract_perms"))
			if err != nil {
				if createdDest {
					os.RemoveAll(name)
				}
				ret.Set("comment", err.Error())
				return ret, nil
			}
			files = trimFiles(files, opts.trim)
			filesVal = strsValue(files)
		}
	}
	// Ownership is enforced on the top-level paths, recursively.
	var enforceFailed []string
	if uid != -1 || gid != -1 {
		var roots []string
		if p := c.Str("enforce_ownership_on"); p != "" {
			roots = []string{p}
		} else {
			for _, p := range append(append(append([]string(nil), contents.TopDirs...), contents.TopFiles...), contents.TopLinks...) {
				roots = append(roots, filepath.Join(name, p))
			}
		}
		for _, root := range roots {
			filepath.Walk(strings.TrimRight(root, "/"), func(p string, info os.FileInfo, err error) error {
				if err != nil {
					return nil
				}
				st, ok := fileops.Stat(p, false)
				if !ok {
					return nil
				}
				if (uid != -1 && st.UID != uid) || (gid != -1 && st.GID != gid) {
					changes.Set("updated ownership", true)
					if !c.Test {
						if err := os.Lchown(p, uid, gid); err != nil {
							enforceFailed = append(enforceFailed, p)
						}
					}
				}
				return nil
			})
		}
	}
	if needed {
		if filesLen(filesVal) > 0 {
			if createdDest {
				changes.Set("directories_created", value.NewList(name))
			}
			changes.Set("extracted_files", filesVal)
			ret.Set("comment", explain(source+" extracted to "+name)+". Output was trimmed to "+value.Str(opts.trim)+" number of lines")
			ret.Set("result", true)
		} else {
			ret.Set("comment", "No files were extracted from "+source)
		}
	} else {
		ret.Set("result", true)
		ret.Set("comment", "All files in archive are already present")
		if c.Test && changes.Has("updated ownership") {
			ret.Set("result", nil)
			ret.Set("comment", "All files in archive are already present. Ownership would be updated on one or more files/directories.")
		}
	}
	if len(enforceFailed) > 0 {
		sort.Strings(enforceFailed)
		ret.Set("result", false)
		ret.Set("comment", value.Str(getv(ret, "comment"))+"\n\nWhile trying to enforce user/group ownership, Salt was unable to change ownership on the following paths:\n\n- "+strings.Join(enforceFailed, "\n- "))
	}
	return ret, nil
}
