package main

import (
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	for _, tc := range []struct {
		name, header, want, err string
	}{
		{"ok", "typedef enum _ze_result_t\n{\n    ZE_RESULT_SUCCESS = 0, ///< [Core] success\n" +
			"    ZE_RESULT_ERROR_DEVICE_LOST = 0x70000001, ///< [Core] device hung, or\n        ///< removed\n" +
			"    ZE_RESULT_FORCE_UINT32 = 0x7fffffff\n\n} ze_result_t;\n",
			"ErrorDeviceLost is ZE_RESULT_ERROR_DEVICE_LOST: [Core] device hung, or removed", ""},
		{"no enum", "typedef int x;", "", "no typedef enum"},
		{"unreadable line", "typedef enum _ze_result_t {\n ZE_RESULT_SUCCESS = 0,\n ZE_RESULT_X = FOO,\n} ze_result_t;", "", "cannot read line"},
		{"no success", "typedef enum _ze_result_t {\n ZE_RESULT_NOT_READY = 1,\n} ze_result_t;", "", "first not ZE_RESULT_SUCCESS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Generate([]byte(tc.header))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), tc.want) || strings.Contains(string(got), "FORCE_UINT32") {
				t.Errorf("output:\n%s", got)
			}
		})
	}
}
