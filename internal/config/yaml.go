package config

import "brine/internal/yamlload"

// parseYAML loads a config file with Salt's YAML loader.
func parseYAML(data []byte, name string) (any, error) {
	return yamlload.Load(data, name)
}
