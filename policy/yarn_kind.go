package policy

// SchedulesContainers marks the YARN policies as replay.ContainerPolicy: they
// run on cluster = "yarn" models only, and --policy all picks them there.
func (b *yarnBase) SchedulesContainers() {}
