package plan

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
)

// ErrorKind classifies why a step failed, so the replanner can pick a strategy.
type ErrorKind string

// Error kinds. UnknownTool, MissingFile and BadInput are the ones
// nodes.IncrementalFix knows how to repair without a model.
const (
	ErrKindUnknownTool ErrorKind = "unknown_tool"
	ErrKindMissingFile ErrorKind = "missing_file"
	ErrKindBadInput    ErrorKind = "bad_input"
	ErrKindReference   ErrorKind = "reference" // a {{step.result}} reference did not resolve
	ErrKindPermission  ErrorKind = "permission"
	ErrKindTimeout     ErrorKind = "timeout"
	ErrKindCanceled    ErrorKind = "canceled"
	ErrKindOther       ErrorKind = "other"
)

// Sentinel errors a tool may return (wrapped) to say precisely what went
// wrong; ClassifyError recognises them before it looks at the message.
var (
	ErrBadInput    = errors.New("bad input")
	ErrMissingFile = errors.New("missing file")
)

// ClassifyError maps a tool's error to an ErrorKind: sentinels first
// (ErrBadInput, ErrMissingFile, fs.ErrNotExist, fs.ErrPermission, context
// errors), then the message (English, and the seed documents' Chinese).
func ClassifyError(err error) ErrorKind {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrBadInput):
		return ErrKindBadInput
	case errors.Is(err, ErrMissingFile), errors.Is(err, fs.ErrNotExist):
		return ErrKindMissingFile
	case errors.Is(err, fs.ErrPermission):
		return ErrKindPermission
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return ErrKindTimeout
	case errors.Is(err, context.Canceled):
		return ErrKindCanceled
	case errors.Is(err, ErrReference):
		return ErrKindReference
	}
	return ClassifyErrorText(err.Error())
}

// ClassifyErrorText maps an error message to an ErrorKind.
func ClassifyErrorText(msg string) ErrorKind {
	m := strings.ToLower(msg)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(m, s) {
				return true
			}
		}
		return false
	}
	switch {
	case m == "":
		return ""
	case has("unknown tool", "no such tool", "tool not found", "未知工具"):
		return ErrKindUnknownTool
	case has("no such file", "file not found", "file does not exist", "missing file", "文件不存在"):
		return ErrKindMissingFile
	case has("invalid input", "bad input", "invalid character", "cannot unmarshal", "unexpected end of json", "invalid argument", "参数格式错误", "参数错误"):
		return ErrKindBadInput
	case has("reference {{"):
		return ErrKindReference
	case has("permission denied", "forbidden", "权限不足"):
		return ErrKindPermission
	case has("timeout", "timed out", "deadline exceeded", "超时"):
		return ErrKindTimeout
	case has("context canceled"):
		return ErrKindCanceled
	}
	return ErrKindOther
}
