package chat

// ScanStreamChunk lets the tests of package chat_test (which import the
// adapters, themselves importers of chat) tell the scan's reads from
// json.Unmarshal's.
var ScanStreamChunk = scanStreamChunk
