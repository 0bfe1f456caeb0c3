package chat

import "testing"

// Members keeps the names it has seen in a uint8: a list of nine names
// would switch its duplicate check off for the ninth without a word. Every
// list the readers walk fits (review 63l: the doors' usage names reached eight, before the doors read usage with provider.ParseUsage).
func TestMemberListsFitTheSeenMask(t *testing.T) {
	for name, list := range map[string][]string{"toolCallNames": toolCallNames, "functionNames": functionNames,
		"chunkNames": chunkNames, "choiceNames": choiceNames, "deltaNames": deltaNames} {
		if len(list) > 8 {
			t.Errorf("%s has %d names: Members tracks at most 8", name, len(list))
		}
	}
}
