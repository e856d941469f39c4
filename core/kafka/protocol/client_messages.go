package protocol

import (
	"fmt"
	"strings"
)

// ApiVersionsRequest is the first request on a new connection; a client sends nothing
// else to a broker until it is answered.
type ApiVersionsRequest struct {
	request
	background
}

func (ApiVersionsRequest) Kind() string     { return "ApiVersions" }
func (ApiVersionsRequest) Describe() string { return "ApiVersions" }

// ApiVersionsResponse makes the connection ready.
type ApiVersionsResponse struct{ background }

func (ApiVersionsResponse) Kind() string     { return "ApiVersionsResponse" }
func (ApiVersionsResponse) Describe() string { return "ApiVersionsResponse" }

// MetadataRequest asks a broker where partitions lead.
type MetadataRequest struct {
	request
	background
	Topics []string
}

func (MetadataRequest) Kind() string       { return "Metadata" }
func (m MetadataRequest) Describe() string { return "Metadata " + strings.Join(m.Topics, ",") }

// MetadataResponse is a broker's view of partition leadership.
type MetadataResponse struct {
	background
	Partitions []PartitionState
}

func (MetadataResponse) Kind() string { return "MetadataResponse" }
func (m MetadataResponse) Describe() string {
	return "MetadataResponse " + describeStates(m.Partitions)
}

// ListOffsetsRequest asks a leader for the latest readable offset (auto.offset.reset=latest).
type ListOffsetsRequest struct {
	request
	TP        TP
	Isolation IsolationLevel // read_committed asks for the LSO rather than the HW
}

func (ListOffsetsRequest) Kind() string { return "ListOffsets" }
func (m ListOffsetsRequest) Describe() string {
	return "ListOffsets " + m.TP.String() + " latest" + m.Isolation.suffix()
}

// ListOffsetsResponse answers with the high watermark.
type ListOffsetsResponse struct {
	TP     TP
	Err    Error
	Offset int64
}

func (ListOffsetsResponse) Kind() string { return "ListOffsetsResponse" }
func (m ListOffsetsResponse) Describe() string {
	if m.Err != "" {
		return "ListOffsetsResponse " + m.TP.String() + " " + m.Err.String()
	}
	return fmt.Sprintf("ListOffsetsResponse %s offset=%d", m.TP, m.Offset)
}
