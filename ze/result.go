package ze

import (
	"errors"
	"fmt"
)

// Result is a Level-Zero result code (ze_result_t). Success is not an
// error: code that turns a ze_result_t into a Go error uses [Check].
type Result uint32

// Error returns the specification's name and the code, such as
// "ZE_RESULT_ERROR_DEVICE_LOST (0x70000001)"; a code the specification
// does not name prints as "ze_result_t 0x12345678".
func (r Result) Error() string {
	if n, ok := resultName(r); ok {
		return fmt.Sprintf("%s (%#x)", n, uint32(r))
	}
	return fmt.Sprintf("ze_result_t %#x", uint32(r))
}

// String is the specification's name alone, or the code in hex.
func (r Result) String() string {
	if n, ok := resultName(r); ok {
		return n
	}
	return fmt.Sprintf("%#x", uint32(r))
}

// Check returns nil for ZE_RESULT_SUCCESS and r otherwise.
func Check(r uint32) error {
	if Result(r) == Success {
		return nil
	}
	return Result(r)
}

// CallError is a result with the Level-Zero call that returned it.
type CallError struct {
	Call   string // the Level-Zero function, e.g. "zetMetricStreamerReadData"
	Result Result
}

func (e *CallError) Error() string { return e.Call + ": " + e.Result.Error() }

// Unwrap returns the Result, so that errors.Is(err, ze.ErrorDeviceLost)
// and errors.As(err, &r) see through the call.
func (e *CallError) Unwrap() error { return e.Result }

// Call returns nil for ZE_RESULT_SUCCESS and a *CallError naming call
// otherwise.
func Call(call string, r uint32) error {
	if Result(r) == Success {
		return nil
	}
	return &CallError{Call: call, Result: Result(r)}
}

// ResultOf returns the Level-Zero result err carries (through any
// wrapping), and false when it carries none.
func ResultOf(err error) (Result, bool) {
	var r Result
	if errors.As(err, &r) {
		return r, true
	}
	return 0, false
}
