package nodes

import "github.com/stategraph/stategraph/nodes/tool"

// FuncTool is tool.Func, kept while code outside package nodes moves to it.
//
// Deprecated: use tool.Func.
type FuncTool = tool.Func
