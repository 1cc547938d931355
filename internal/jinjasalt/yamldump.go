package jinjasalt

import (
	"errors"
	"strings"

	"brine/internal/value"
	"brine/internal/yamlload"
)

// formatYAML is SerializerExtension.format_yaml: salt.utils.yaml.safe_dump
// (keys sorted, unicode kept) with default_flow_style set from the filter
// argument (None keeps PyYAML's own choice), stripped, without a trailing
// document end marker.
func formatYAML(v any, flow any) (string, error) {
	opts := yamlload.DumpOptions{AllowUnicode: true, SortKeys: true}
	if flow != nil {
		opts.DefaultFlowStyle = yamlload.FlowStyle(truthy(flow))
	}
	s, err := yamlload.Dump(v, opts)
	var de *value.DepthError
	if errors.As(err, &de) {
		return "", pyErr(excRecursion, "%s", de.Error())
	}
	if err != nil {
		return "", pyErr("yaml.representer.RepresenterError", "%s", err.Error())
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "\n...")
	return s, nil
}
