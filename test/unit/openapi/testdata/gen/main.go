// Command gen checks atrium's gnostic protobuf encoding of /openapi/v2 against gnostic itself.
//
// Usage: go run . <document.json> <document.pb>
//
// It parses the JSON with openapi_v2.ParseDocument (what kube-apiserver does before proto.Marshal),
// proto.Unmarshals the .pb (what client-go's OpenAPISchema() does), and prints a JSON report:
// whether both messages are proto.Equal, whether they render to the same document, and the
// document decoded from the .pb.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	"google.golang.org/protobuf/proto"
	"gopkg.in/yaml.v3"
)

func render(doc *openapi_v2.Document) (interface{}, error) {
	node := doc.ToRawInfo()
	out, err := yaml.Marshal(node)
	if err != nil {
		return nil, err
	}
	var v interface{}
	if err := yaml.Unmarshal(out, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen <document.json> <document.pb>")
		os.Exit(2)
	}
	jsonBytes, err := os.ReadFile(os.Args[1])
	check(err)
	pbBytes, err := os.ReadFile(os.Args[2])
	check(err)

	fromJSON, err := openapi_v2.ParseDocument(jsonBytes)
	check(err)
	fromPB := &openapi_v2.Document{}
	check(proto.Unmarshal(pbBytes, fromPB))

	renderedJSON, err := render(fromJSON)
	check(err)
	renderedPB, err := render(fromPB)
	check(err)

	report := map[string]interface{}{
		"protoEqual":    proto.Equal(fromJSON, fromPB),
		"semanticEqual": reflect.DeepEqual(renderedJSON, renderedPB),
		"document":      renderedPB,
	}
	out, err := json.MarshalIndent(report, "", "  ")
	check(err)
	fmt.Println(string(out))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
