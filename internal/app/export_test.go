package app

// ReplicaName is replicaName, for the tests.
var ReplicaName = replicaName
