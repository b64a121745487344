// Command apicount counts the top-level exported names of Go packages —
// constants, variables, functions and types, one each, not methods or
// fields — in their non-test files, ignoring build constraints:
//
//	go run ./internal/apicount ./graph ./nodes
//
// prints one line per directory: the count and the directory. With -v it
// lists the names too.
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "list the names")
	flag.Parse()
	for _, dir := range flag.Args() {
		names, err := exported(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, "apicount:", err)
			os.Exit(1)
		}
		fmt.Printf("%d\t%s\n", len(names), dir)
		if *verbose {
			for _, n := range names {
				fmt.Println("\t" + n)
			}
		}
	}
}

// exported returns the sorted exported top-level names of the package in dir.
func exported(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var names []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if f.Name.Name == "main" {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, "func "+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, "type "+s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, d.Tok.String()+" "+n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names, nil
}
