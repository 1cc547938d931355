package cli

import (
	"testing"

	"brine/internal/fleet/events"
	"brine/internal/value"
)

func TestFormatEvent(t *testing.T) {
	ev := events.Event{Tag: "salt/auth", Data: value.MapOf("result", true, "act", "pend", "id", "web1", "pub", "UAB", "_stamp", "2026-11-25T19:58:07.123456", "n", value.NewList(int64(1), "é"))}
	for _, tc := range []struct{ out, want string }{
		// state.event pretty=True: sorted keys, indented by 4, no ASCII escaping.
		{"pretty", "salt/auth\t{\n    \"_stamp\": \"2026-11-25T19:58:07.123456\",\n    \"act\": \"pend\",\n    \"id\": \"web1\",\n    \"n\": [\n        1,\n        \"é\"\n    ],\n    \"pub\": \"UAB\",\n    \"result\": true\n}\n"},
		{"json", `{"tag": "salt/auth", "data": {"result": true, "act": "pend", "id": "web1", "pub": "UAB", "_stamp": "2026-11-25T19:58:07.123456", "n": [1, "é"]}}` + "\n"},
	} {
		if got := FormatEvent(ev, tc.out); got != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.out, got, tc.want)
		}
	}
}
