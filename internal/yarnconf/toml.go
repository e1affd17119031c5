package yarnconf

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// The TOML forms (docs/yarn-schedulers.md): a top-level scheduler =
// "capacity" or "fair" says which, and the queue tree is a tree of tables
// under [root].
//
// Capacity: a top-level scalar k is yarn.scheduler.capacity.k; a scalar k in
// table [root.a.b] is yarn.scheduler.capacity.root.a.b.k (queues may be
// omitted: the child tables, in file order, are the children); [preemption]
// holds enable (yarn.resourcemanager.scheduler.monitor.enable) and the
// yarn.resourcemanager.monitor.capacity.preemption.* keys by their suffix.
// Values are Hadoop's (capacities in percent, intervals in ms).
//
//	scheduler = "capacity"
//	maximum-am-resource-percent = 0.2
//	[preemption]
//	enable = true
//	max_wait_before_kill = 15000
//	[root.a]
//	capacity = 60
//	[root.b]
//	capacity = 40
//
// Fair: a top-level scalar is the <allocations> element of that name
// (userMaxAppsDefault = 5); [users.NAME] holds maxRunningApps; [[placement]]
// tables are the <rule>s of the queuePlacementPolicy (name, create, queue);
// a table [root.a.b] is the queue root.a.b and its scalars the queue's
// elements by their XML names (weight, minResources, maxRunningApps, ...;
// type = "parent" is the attribute).

// tomlKind returns the scheduler key of a TOML file.
func tomlKind(file string, data []byte) (string, error) {
	var top map[string]any
	if _, err := toml.Decode(string(data), &top); err != nil {
		return "", tomlErr(file, err)
	}
	switch top["scheduler"] {
	case "capacity":
		return "capacity", nil
	case "fair":
		return "fair", nil
	}
	return "", fmt.Errorf("%s: key scheduler: want \"capacity\" or \"fair\", got %v", file, top["scheduler"])
}

func tomlErr(file string, err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: line %d: malformed TOML: %s", file, pe.Position.Line, pe.Message)
	}
	return fmt.Errorf("%s: malformed TOML: %w", file, err)
}

// tomlEntry is one key of a TOML file: its path, type and value.
type tomlEntry struct {
	key   toml.Key
	typ   string
	value any
}

// tomlEntries decodes data and lists its keys in file order.
func tomlEntries(file string, data []byte) ([]tomlEntry, error) {
	var top map[string]any
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		return nil, tomlErr(file, err)
	}
	var out []tomlEntry
	for _, k := range md.Keys() {
		var v any = top
		for _, p := range k {
			m, ok := v.(map[string]any)
			if !ok {
				// Inside an array of tables: the caller reads those whole.
				v = nil
				break
			}
			v = m[p]
		}
		out = append(out, tomlEntry{key: k, typ: md.Type(k...), value: v})
	}
	return out, nil
}

// scalar formats a TOML scalar as a configuration value.
func scalar(file string, e tomlEntry) (string, error) {
	switch v := e.value.(type) {
	case string:
		return v, nil
	case int64:
		return strconv.FormatInt(v, 10), nil
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(v), nil
	case []any:
		var s []string
		for _, x := range v {
			str, ok := x.(string)
			if !ok {
				return "", fmt.Errorf("%s: key %s: want an array of strings", file, e.key)
			}
			s = append(s, str)
		}
		return strings.Join(s, ","), nil
	}
	return "", fmt.Errorf("%s: key %s: want a string, number or boolean, got %s", file, e.key, e.typ)
}

// ParseCapacityTOML reads the TOML form of capacity-scheduler.xml.
func ParseCapacityTOML(file string, data []byte) (*CapacityConf, error) {
	es, err := tomlEntries(file, data)
	if err != nil {
		return nil, err
	}
	var ps []prop
	children := map[string][]string{} // queue path → child tables in order
	hasQueues := map[string]bool{}
	for _, e := range es {
		k := e.key
		where := "key " + k.String()
		switch {
		case len(k) == 1 && k[0] == "scheduler":
		case k[0] == "preemption" && len(k) == 1:
			if e.typ != "Hash" {
				return nil, fmt.Errorf("%s: key preemption: want a table", file)
			}
		case k[0] == "preemption" && len(k) == 2:
			v, err := scalar(file, e)
			if err != nil {
				return nil, err
			}
			name := PreemptionPrefix + k[1]
			if k[1] == "enable" {
				name = MonitorEnableKey
			}
			ps = append(ps, prop{name: name, value: v, where: where})
		case k[0] == "root" && (e.typ == "Hash" || e.typ == "Table"):
			if len(k) > 1 {
				parent := strings.Join(k[:len(k)-1], ".")
				children[parent] = append(children[parent], k[len(k)-1])
			}
		case k[0] == "root":
			v, err := scalar(file, e)
			if err != nil {
				return nil, err
			}
			path := strings.Join(k[:len(k)-1], ".")
			if k[len(k)-1] == "queues" {
				hasQueues[path] = true
			}
			ps = append(ps, prop{name: CapacityPrefix + k.String(), value: v, where: where})
		case len(k) == 1:
			v, err := scalar(file, e)
			if err != nil {
				return nil, err
			}
			ps = append(ps, prop{name: CapacityPrefix + k[0], value: v, where: where})
		default:
			return nil, fmt.Errorf("%s: key %s: unknown key (want top-level scalars, [preemption] or tables under [root])", file, k)
		}
	}
	paths := make([]string, 0, len(children))
	for p := range children {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, p := range paths {
		if !hasQueues[p] {
			ps = append(ps, prop{name: CapacityPrefix + p + ".queues", value: strings.Join(children[p], ","), where: "table [" + p + "]"})
		}
	}
	return capacityFromProps(file, ps)
}

// ParseFairTOML reads the TOML form of an allocation file.
func ParseFairTOML(file string, data []byte) (*FairConf, error) {
	es, err := tomlEntries(file, data)
	if err != nil {
		return nil, err
	}
	root := &node{name: "allocations", where: "file"}
	queues := map[string]*node{}
	users := map[string]*node{}
	var queueOf func(path toml.Key) *node
	queueOf = func(path toml.Key) *node {
		p := path.String()
		if q, ok := queues[p]; ok {
			return q
		}
		q := &node{name: "queue", attrs: map[string]string{"name": path[len(path)-1]}, where: "table [" + p + "]"}
		queues[p] = q
		if len(path) == 1 {
			root.children = append(root.children, q)
		} else {
			parent := queueOf(path[:len(path)-1])
			parent.children = append(parent.children, q)
		}
		return q
	}
	for _, e := range es {
		k := e.key
		where := "key " + k.String()
		switch {
		case len(k) == 1 && k[0] == "scheduler":
		case k[0] == "placement":
			if len(k) != 1 {
				continue
			}
			arr, ok := e.value.([]map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s: key placement: want an array of tables [[placement]]", file)
			}
			pol := &node{name: "queuePlacementPolicy", where: where}
			for i, r := range arr {
				rule := &node{name: "rule", attrs: map[string]string{}, where: fmt.Sprintf("key placement[%d]", i)}
				keys := make([]string, 0, len(r))
				for rk := range r {
					keys = append(keys, rk)
				}
				slices.Sort(keys)
				for _, rk := range keys {
					v, err := scalar(file, tomlEntry{key: toml.Key{"placement", rk}, value: r[rk]})
					if err != nil {
						return nil, err
					}
					rule.attrs[rk] = v
				}
				pol.children = append(pol.children, rule)
			}
			root.children = append(root.children, pol)
		case k[0] == "users":
			isTable := e.typ == "Hash" || e.typ == "Table"
			switch {
			case len(k) <= 2 && !isTable:
				return nil, fmt.Errorf("%s: key %s: want a table [users.NAME]", file, k)
			case len(k) == 1:
			case len(k) == 2:
				u := &node{name: "user", attrs: map[string]string{"name": k[1]}, where: where}
				users[k[1]] = u
				root.children = append(root.children, u)
			case len(k) == 3:
				v, err := scalar(file, e)
				if err != nil {
					return nil, err
				}
				u, ok := users[k[1]]
				if !ok {
					return nil, fmt.Errorf("%s: key %s: unknown key", file, k)
				}
				u.children = append(u.children, &node{name: k[2], text: v, where: where})
			default:
				return nil, fmt.Errorf("%s: key %s: unknown key", file, k)
			}
		case k[0] == "root" && (e.typ == "Hash" || e.typ == "Table"):
			queueOf(k)
		case k[0] == "root" && len(k) == 1:
			return nil, fmt.Errorf("%s: key root: want a table [root]", file)
		case k[0] == "root":
			q := queueOf(k[:len(k)-1])
			v, err := scalar(file, e)
			if err != nil {
				return nil, err
			}
			if k[len(k)-1] == "type" {
				q.attrs["type"] = v
				continue
			}
			q.children = append(q.children, &node{name: k[len(k)-1], text: v, where: where})
		case len(k) == 1:
			v, err := scalar(file, e)
			if err != nil {
				return nil, err
			}
			root.children = append(root.children, &node{name: k[0], text: v, where: where})
		default:
			return nil, fmt.Errorf("%s: key %s: unknown key (want top-level scalars, [users.NAME], [[placement]] or tables under [root])", file, k)
		}
	}
	return fairFromTree(file, root)
}
