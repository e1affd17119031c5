// Package replay is tracereplay's cluster model and discrete-event simulator: the
// hardware model, HDFS block placement, task-time and network models, the event
// engine, the Policy interface with the view of the cluster that policies see, the
// metrics and the results schema.
package replay
