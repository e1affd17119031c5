package yarnconf

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// capXML wraps properties (name, value pairs) in a capacity-scheduler.xml,
// one property per line from line 2 on.
func capXML(kv ...string) string {
	var b strings.Builder
	b.WriteString("<configuration>\n")
	for i := 0; i+1 < len(kv); i += 2 {
		b.WriteString("<property><name>" + kv[i] + "</name><value>" + kv[i+1] + "</value></property>\n")
	}
	b.WriteString("</configuration>\n")
	return b.String()
}

const p = CapacityPrefix

func TestCapacityParse(t *testing.T) {
	c, _, err := Parse("c.xml", []byte(capXML(
		p+"root.queues", "a,b",
		p+"root.a.capacity", "70",
		p+"root.a.maximum-capacity", "-1",
		p+"root.b.capacity", "30",
		p+"root.b.maximum-capacity", "50",
		p+"root.b.queues", "x, y",
		p+"root.b.x.capacity", "33.3333333",
		p+"root.b.x.user-limit-factor", "2",
		p+"root.b.x.minimum-user-limit-percent", "25",
		p+"root.b.x.maximum-am-resource-percent", "0.5",
		p+"root.b.y.capacity", "66.6666667",
		p+"root.b.y.state", "STOPPED",
		p+"root.b.y.accessible-node-labels.gpu.capacity", "50",
		p+"root.a.auto-create-child-queue.enabled", "true",
		p+"resource-calculator", "org.apache.hadoop.yarn.util.resource.DominantResourceCalculator",
		p+"node-locality-delay", "-1",
		MonitorEnableKey, "true",
		PreemptionPrefix+"max_wait_before_kill", "5000",
		"yarn.resourcemanager.hostname", "rm",
	)))
	if err != nil {
		t.Fatal(err)
	}
	leaves := c.Leaves()
	if len(leaves) != 3 {
		t.Fatalf("%d leaves, want 3", len(leaves))
	}
	a, x, y := leaves[0], leaves[1], leaves[2]
	for _, k := range []struct {
		what      string
		got, want float64
	}{
		{"a capacity", a.Capacity, 0.7}, {"a max", a.MaximumCapacity, 1}, {"a max apps", float64(a.MaximumApplications), 7000},
		{"x abs", x.AbsoluteCapacity, 0.3 * 0.333333333}, {"x abs max", x.AbsoluteMaximumCapacity, 0.5},
		{"x ulf", x.UserLimitFactor, 2}, {"x mulp", x.MinimumUserLimit, 0.25}, {"x am", x.MaximumAMResourcePercent, 0.5},
		{"y am (global)", y.MaximumAMResourcePercent, 0.1}, {"kill µs", float64(c.Preemption.MaxWaitBeforeKillUs), 5e6},
		{"interval µs", float64(c.Preemption.MonitoringIntervalUs), 3e6}, {"delay", float64(c.NodeLocalityDelay), -1},
	} {
		if d := k.got - k.want; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s = %v, want %v", k.what, k.got, k.want)
		}
	}
	if y.Running || !x.Running || !c.Preemption.Enabled || c.ResourceCalculator != DominantCalculator || x.Path != "root.b.x" {
		t.Errorf("y running %v, x running %v, preemption %v, calculator %s, path %s", y.Running, x.Running, c.Preemption.Enabled, c.ResourceCalculator, x.Path)
	}
}

func TestCapacityErrors(t *testing.T) {
	for _, c := range []struct {
		name, xml, want string
	}{
		{"children not 100%", capXML(p+"root.queues", "a,b", p+"root.a.capacity", "50", p+"root.b.capacity", "40"),
			"c.xml: line 2: yarn.scheduler.capacity.root.queues: capacities of the children of root add up to 90%, not 100%"},
		{"over max", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", p+"root.a.maximum-capacity", "50"),
			"c.xml: line 4: yarn.scheduler.capacity.root.a.maximum-capacity: capacity 100% of queue root.a is over its maximum-capacity 50%"},
		{"unknown queue key", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", p+"root.a.capacty", "5"),
			"c.xml: line 4: yarn.scheduler.capacity.root.a.capacty: unknown key"},
		{"unknown global key", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", p+"maximum-apps", "5"),
			"c.xml: line 4: yarn.scheduler.capacity.maximum-apps: unknown key"},
		{"key of an unlisted queue", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", p+"root.b.capacity", "5"),
			"c.xml: line 4: yarn.scheduler.capacity.root.b.capacity: unknown key"},
		{"unknown preemption key", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", PreemptionPrefix+"max_wait", "5"),
			"line 4: yarn.resourcemanager.monitor.capacity.preemption.max_wait: unknown key"},
		{"malformed number", capXML(p+"root.queues", "a", p+"root.a.capacity", "1OO"),
			`c.xml: line 3: yarn.scheduler.capacity.root.a.capacity: "1OO": malformed number`},
		{"malformed int", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", p+"node-locality-delay", "4.5"),
			`line 4: yarn.scheduler.capacity.node-locality-delay: "4.5": malformed integer`},
		{"malformed bool", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", MonitorEnableKey, "yes"),
			`line 4: yarn.resourcemanager.scheduler.monitor.enable: "yes": malformed boolean`},
		{"queue named twice", capXML(p+"root.queues", "a,a", p+"root.a.capacity", "50"),
			`c.xml: line 2: yarn.scheduler.capacity.root.queues: queue "root.a" named twice`},
		{"missing capacity", capXML(p+"root.queues", "a"), "queue root.a has no yarn.scheduler.capacity.root.a.capacity"},
		{"bad calculator", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", p+"resource-calculator", "Foo"),
			"line 4: yarn.scheduler.capacity.resource-calculator"},
		{"bad state", capXML(p+"root.queues", "a", p+"root.a.capacity", "100", p+"root.a.state", "DRAINING"),
			`"DRAINING": want RUNNING or STOPPED`},
		{"unknown element", "<configuration>\n<propety/>\n</configuration>", "c.xml: line 2: <propety> in <configuration>: unknown element"},
		{"malformed XML", "<configuration>\n<property>\n</configuration>", "c.xml: line 3: malformed XML"},
		{"wrong root", "<conf/>", "root element <conf>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse("c.xml", []byte(c.xml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestFairParse(t *testing.T) {
	_, f, err := Parse("f.xml", []byte(`<?xml version="1.0"?>
<allocations>
  <queue name="a">
    <weight>3</weight>
    <minResources>vcores=2, memory-mb=2048</minResources>
    <maxResources>50% memory, 25% cpu</maxResources>
    <fairSharePreemptionTimeout>30</fairSharePreemptionTimeout>
    <queue name="a1"><schedulingPolicy>fifo</schedulingPolicy></queue>
  </queue>
  <pool name="b"><maxRunningApps>2</maxRunningApps><maxAMShare>-1</maxAMShare></pool>
  <user name="bob"><maxRunningApps>1</maxRunningApps></user>
  <userMaxAppsDefault>3</userMaxAppsDefault>
  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
  <defaultMinSharePreemptionTimeout>10</defaultMinSharePreemptionTimeout>
</allocations>`))
	if err != nil {
		t.Fatal(err)
	}
	a, a1, b := f.Find("root.a"), f.Find("root.a.a1"), f.Find("root.b")
	if a == nil || a1 == nil || b == nil || f.Find("root.default") == nil {
		t.Fatalf("queues a %v a1 %v b %v default %v", a, a1, b, f.Find("root.default"))
	}
	if !a.Parent || a.Weight != 3 || a.MinResources.MemoryMB != 2048 || a.MinResources.VCores != 2 ||
		!a.MaxResources.Percent || a.MaxResources.MemoryPct != 0.5 || a.MaxResources.VCoresPct != 0.25 {
		t.Errorf("a = %+v", *a)
	}
	if a.SchedulingPolicy != PolicyDRF || a1.SchedulingPolicy != PolicyFIFO || a1.FairSharePreemptionTimeoutUs != 30e6 ||
		a1.MinSharePreemptionTimeoutUs != 10e6 || a1.FairSharePreemptionThreshold != 0.5 {
		t.Errorf("a1 = %+v", *a1)
	}
	if b.MaxRunningApps != 2 || b.MaxAMShare != -1 || f.Find("root.default").MaxAMShare != 0.5 {
		t.Errorf("b = %+v", *b)
	}
	if f.UserMaxApps("bob") != 1 || f.UserMaxApps("carol") != 3 {
		t.Errorf("user limits bob %d carol %d", f.UserMaxApps("bob"), f.UserMaxApps("carol"))
	}
}

func TestFairErrors(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"unknown element", "<queue name=\"a\">\n<wieght>2</wieght></queue>", "f.xml: line 3: <wieght>: unknown element in <queue>"},
		{"unknown top element", "<maxApps>3</maxApps>", "f.xml: line 2: <maxApps>: unknown element in <allocations>"},
		{"queue named twice", "<queue name=\"a\"/>\n<queue name=\"a\"/>", `f.xml: line 3: <queue>: queue "root.a" named twice`},
		{"malformed weight", "<queue name=\"a\"><weight>two</weight></queue>", `f.xml: line 2: <weight>: "two": malformed number`},
		{"malformed resources", "<queue name=\"a\"><minResources>1024 mb</minResources></queue>", "memory and vcores both needed"},
		{"bad unit", "<queue name=\"a\"><minResources>1024 tb, 1 vcores</minResources></queue>", `unknown unit "tb"`},
		{"bad policy", "<queue name=\"a\"><schedulingPolicy>lottery</schedulingPolicy></queue>", "want fair, drf or fifo"},
		{"fifo parent", "<queue name=\"a\"><schedulingPolicy>fifo</schedulingPolicy><queue name=\"b\"/></queue>", "fifo is only allowed on leaf queues"},
		{"min over max", "<queue name=\"a\"><minResources>2048 mb, 1 vcores</minResources><maxResources>1024 mb, 1 vcores</maxResources></queue>", "minResources over maxResources"},
		{"dotted name", "<queue name=\"a.b\"/>", "want a non-empty name without dots"},
		{"bad rule", "<queuePlacementPolicy><rule name=\"group\"/></queuePlacementPolicy>", `unknown placement rule`},
		{"bad user", "<user name=\"x\"><maxRunningApps>-1</maxRunningApps></user>", "want at least 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse("f.xml", []byte("<allocations>\n"+c.body+"\n</allocations>"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestParseResources(t *testing.T) {
	for _, c := range []struct {
		in       string
		mem, cpu int64
		pm, pc   float64
		err      bool
	}{
		{in: "1024 mb, 2 vcores", mem: 1024, cpu: 2},
		{in: "2 vcores, 1024 MB", mem: 1024, cpu: 2},
		{in: "10000 mb,0vcores", mem: 10000},
		{in: "memory-mb=4096, vcores=4", mem: 4096, cpu: 4},
		{in: "2 gb, 1 vcores", mem: 2048, cpu: 1},
		{in: "50% memory, 25% cpu", pm: 0.5, pc: 0.25},
		{in: "40%", pm: 0.4, pc: 0.4},
		{in: "memory-mb=50%, vcores=10%", pm: 0.5, pc: 0.1},
		{in: "", err: true}, {in: "1024", err: true}, {in: "x mb, 1 vcores", err: true}, {in: "150%", err: true},
		{in: "-1 mb, 1 vcores", err: true}, {in: "50% memory, 2 vcores", err: true},
	} {
		r, err := ParseResources(c.in)
		if (err != nil) != c.err {
			t.Errorf("%q: error %v, want error %v", c.in, err, c.err)
			continue
		}
		if !c.err && (r.MemoryMB != c.mem || r.VCores != c.cpu || r.MemoryPct != c.pm || r.VCoresPct != c.pc) {
			t.Errorf("%q = %+v", c.in, r)
		}
	}
}

// TestTOMLMatchesXML: the TOML samples describe the same trees as the XML
// ones where they say the same.
func TestTOMLMatchesXML(t *testing.T) {
	cx, _, err := Load("testdata/capacity-scheduler.xml")
	if err != nil {
		t.Fatal(err)
	}
	ct, _, err := Load("testdata/capacity-scheduler.toml")
	if err != nil {
		t.Fatal(err)
	}
	lx, lt := cx.Leaves(), ct.Leaves()
	if len(lx) != len(lt) {
		t.Fatalf("%d leaves in XML, %d in TOML", len(lx), len(lt))
	}
	for i := range lx {
		a, b := *lx[i], *lt[i]
		a.Children, b.Children = nil, nil
		if !reflect.DeepEqual(a, b) {
			t.Errorf("leaf %d: XML %+v, TOML %+v", i, a, b)
		}
	}
	if cx.Preemption != ct.Preemption {
		t.Errorf("preemption: XML %+v, TOML %+v", cx.Preemption, ct.Preemption)
	}
	_, f, err := Load("testdata/fair-scheduler.toml")
	if err != nil {
		t.Fatal(err)
	}
	if q := f.Find("root.prod"); q == nil || q.Weight != 2 || q.MinResources.VCores != 10 || q.MaxAMShare != 0.1 {
		t.Errorf("root.prod = %+v", q)
	}
	if f.UserMaxApps("sample_user") != 30 || len(f.Placement) != 2 || f.Placement[1].Queue != "prod" {
		t.Errorf("users %+v placement %+v", f.Users, f.Placement)
	}
}

func TestTOMLErrors(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"no scheduler", "[root.a]\ncapacity = 100\n", "key scheduler"},
		{"not 100%", "scheduler = \"capacity\"\n[root.a]\ncapacity = 60\n[root.b]\ncapacity = 30\n", "table [root]: yarn.scheduler.capacity.root.queues: capacities of the children of root add up to 90%"},
		{"unknown key", "scheduler = \"capacity\"\n[root.a]\ncapacity = 100\ncapcity = 1\n", "key root.a.capcity: yarn.scheduler.capacity.root.a.capcity: unknown key"},
		{"malformed", "scheduler = \"capacity\"\n[root.a\n", "q.toml: line 3: malformed TOML"},
		{"fair unknown", "scheduler = \"fair\"\n[root.a]\nwieght = 2\n", "key root.a.wieght: <wieght>: unknown element in <queue>"},
		{"fair bad number", "scheduler = \"fair\"\n[root.a]\nmaxRunningApps = \"many\"\n", `"many": malformed integer`},
		{"fair root scalar", "scheduler = \"fair\"\nroot = 5\n", "key root: want a table [root]"},
		{"fair user scalar", "scheduler = \"fair\"\n[users]\nbob = 2\n", "key users.bob: want a table [users.NAME]"},
		{"capacity root scalar", "scheduler = \"capacity\"\nroot = 5\n", "yarn.scheduler.capacity.root: unknown key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := Parse("q.toml", []byte(c.body))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestSamplesLoad: the samples shipped for users load, and testdata holds
// the same files.
func TestSamplesLoad(t *testing.T) {
	files, err := filepath.Glob("../../samples/yarn/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("samples: %v %v", files, err)
	}
	for _, f := range files {
		if _, _, err := Load(f); err != nil {
			t.Error(err)
		}
		a, _ := os.ReadFile(f)
		b, err := os.ReadFile(filepath.Join("testdata", filepath.Base(f)))
		if err != nil || string(a) != string(b) {
			t.Errorf("testdata/%s differs from %s", filepath.Base(f), f)
		}
	}
	if DefaultCapacity().Leaves()[0].Path != "root.default" || DefaultFair().Find("root.default") == nil {
		t.Error("defaults have no root.default")
	}
}
