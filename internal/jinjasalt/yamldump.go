package jinjasalt

import "strings"

// formatYAML is SerializerExtension.format_yaml: salt.utils.yaml.safe_dump
// (sorted keys, unicode kept) in flow or block style, stripped, without a
// trailing document end marker.
func formatYAML(v any, flow bool) (string, error) {
	s, err := yamlDump(v, flow)
	if err != nil {
		return "", err
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "\n...")
	return s, nil
}

// yamlDump is PyYAML's safe_dump as Salt calls it. It waits for
// yamlload's emitter.
func yamlDump(v any, flow bool) (string, error) {
	return "", pyErr(excNotImplemented, "the yaml filter needs yamlload.Dump, which is not available yet")
}
