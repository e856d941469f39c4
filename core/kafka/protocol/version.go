package protocol

import "strings"

// Version is the Kafka release a scene's brokers and clients follow (the scene's
// kafka.version). 3.9 is the playground's reference; 4.x is the newest Kafka 4 release
// whose broker, clients and Streams the registry serves together, 4.4, as it ships:
// its default features and client defaults.
type Version uint8

const (
	Kafka39 Version = iota // "3.9": the reference, and every scene's default
	Kafka4                 // "4.x": Kafka 4.4
)

// Versions lists the releases a scene may follow, oldest first.
var Versions = []Version{Kafka39, Kafka4}

// String is the version as a scene writes it: "3.9" or "4.x".
func (v Version) String() string {
	if v == Kafka4 {
		return "4.x"
	}
	return "3.9"
}

// Release is the exact release the version follows, as kafka-storage's
// --release-version names it: the real cluster the referee runs.
func (v Version) Release() string {
	if v == Kafka4 {
		return "4.4"
	}
	return "3.9"
}

// ParseVersion reads a scene's kafka.version: "3.9", or "4.x" (also written "4" or
// "4.4", the release 4.x follows).
func ParseVersion(s string) (Version, bool) {
	switch strings.TrimSpace(s) {
	case "3.9":
		return Kafka39, true
	case "4.x", "4", "4.4":
		return Kafka4, true
	}
	return Kafka39, false
}

// VersionChoices are the values kafka.version takes, as a scene writes them.
func VersionChoices() []string {
	out := make([]string, len(Versions))
	for i, v := range Versions {
		out[i] = v.String()
	}
	return out
}
