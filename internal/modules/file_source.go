package modules

// file_source.go is the source handling of salt/modules/file.py:
// source_list, get_source_sum and apply_template_on_contents (through
// internal/fileops, which file.managed uses too).

import (
	"errors"

	"brine/internal/execmod"
	"brine/internal/fileops"
	"brine/internal/value"
)

func init() {
	execmod.Register("file.source_list", fileSourceList, "Return (source, source_hash) for the first source of a list that exists.")
	execmod.Register("file.get_source_sum", fileGetSourceSum, "Return {'hash_type': ..., 'hsum': ...} for a source_hash (a digest, type=digest, or a hash file).")
	execmod.Register("file.apply_template_on_contents", fileApplyTemplate, "Render contents with a template engine (jinja, ...) and context/defaults.")
}

func fileSourceList(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("source_list", args, kwargs, execmod.Req("source"), execmod.Req("source_hash"), execmod.Req("saltenv"))
	if err != nil {
		return nil, err
	}
	src, hash, err := fileops.SourceList(ctx, execmod.String(v[2]), v[0], v[1])
	if errors.Is(err, fileops.ErrNoSource) {
		return nil, execmod.Errorf("%s", err)
	}
	if err != nil {
		return nil, err
	}
	return value.Tuple{src, hash}, nil
}

func fileGetSourceSum(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("get_source_sum", args, kwargs, execmod.Opt("file_name", ""), execmod.Opt("source", ""),
		execmod.Opt("source_hash", nil), execmod.Opt("source_hash_name", nil), execmod.Opt("saltenv", "base"),
		execmod.Opt("verify_ssl", true))
	if err != nil {
		return nil, err
	}
	sh, ok := v[2].(string)
	if !ok {
		return nil, &pyTypeError{msg: "expected str, bytes or os.PathLike object, not " + value.TypeName(v[2])}
	}
	typ, hsum, err := fileops.SourceSum(ctx, execmod.String(v[4]), sh, execmod.String(v[0]), execmod.String(v[1]), execmod.String(v[3]))
	if err != nil {
		return nil, saltErr(err)
	}
	return value.MapOf("hash_type", typ, "hsum", hsum), nil
}

// templateEngines is salt.utils.templates.TEMPLATE_REGISTRY's names.
var templateEngines = map[string]bool{"jinja": true, "genshi": true, "mako": true, "py": true, "wempy": true, "cheetah": true}

func fileApplyTemplate(ctx *execmod.Context, args []any, kwargs *value.Map) (any, error) {
	v, _, err := execmod.Bind("apply_template_on_contents", args, kwargs, execmod.Req("contents"), execmod.Req("template"),
		execmod.Req("context"), execmod.Req("defaults"), execmod.Req("saltenv"))
	if err != nil {
		return nil, err
	}
	engine := execmod.String(v[1])
	if !templateEngines[engine] {
		return value.MapOf("result", false, "comment", "Specified template format "+engine+" is not supported"), nil
	}
	vars := value.NewMap(0)
	if d, ok := v[3].(*value.Map); ok {
		vars = d
	}
	if c, ok := v[2].(*value.Map); ok {
		vars.Update(c)
	}
	out, err := fileops.RenderTemplate(ctx, execmod.String(v[4]), engine, execmod.String(v[0]), vars, "")
	if err != nil {
		return nil, execmod.Errorf("%v", err)
	}
	return out, nil
}
