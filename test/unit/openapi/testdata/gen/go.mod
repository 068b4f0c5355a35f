module atrium.local/openapi-v2-decode

go 1.23

require (
	github.com/google/gnostic-models v0.6.9
	google.golang.org/protobuf v1.36.12
	gopkg.in/yaml.v3 v3.0.1
)
