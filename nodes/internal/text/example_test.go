package text_test

import (
	"fmt"

	"github.com/stategraph/stategraph/nodes/internal/text"
)

func Example() {
	in, _ := text.CompactJSON(map[string]string{"q": "a&b"})
	fmt.Println(string(in))
	fmt.Println(text.Truncate("warehouse A has no stock", 11))
	// Output:
	// {"q":"a&b"}
	// warehouse A…
}
