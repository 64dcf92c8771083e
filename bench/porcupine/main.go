// Command porcupine-check judges a lockstep JSONL register history with Porcupine, for
// bench/checker-vs-porcupine.ts. Porcupine itself is not in this repository: the bench
// builds this file against a copy of its source given by PORCUPINE_SRC (a clone of
// anishathalye/porcupine), with Debian's Go, through a go.mod replace written at build.
//
// Usage: porcupine-check <history.jsonl>; prints "true" or "false" (linearizable or not).
// Events are taken in file order (Porcupine's event form), as lockstep takes them; an op
// of unknown outcome (info) returns at the end of the history and may or may not have
// taken effect (a nondeterministic step); an info read observed nothing and is left out.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/anishathalye/porcupine"
)

type line struct {
	Process string          `json:"process"`
	Type    string          `json:"type"`
	F       string          `json:"f"`
	Value   json.RawMessage `json:"value"`
}

type input struct {
	write bool
	value string
	info  bool
}

// valueOf reads lockstep's {"value": v} wrap, or a bare value, as JSON text.
func valueOf(raw json.RawMessage) string {
	var wrapped struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &wrapped) == nil && wrapped.Value != nil {
		return string(wrapped.Value)
	}
	return string(raw)
}

var register = porcupine.NondeterministicModel{
	Init: func() []interface{} { return []interface{}{"null"} },
	Step: func(state, in, out interface{}) []interface{} {
		i := in.(input)
		if i.write && i.info {
			return []interface{}{state, i.value}
		}
		if i.write {
			return []interface{}{i.value}
		}
		if out.(string) == state.(string) {
			return []interface{}{state}
		}
		return nil
	},
	Equal: func(a, b interface{}) bool { return a.(string) == b.(string) },
}

// readEvents pairs each invoke with its completion (first pass), then lays the calls and
// returns out in file order, leaving out failed ops and info reads.
func readEvents(path string) ([]porcupine.Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, err
		}
		lines = append(lines, l)
	}
	completion := map[int]int{} // invoke line -> completion line
	invokeOf := map[int]int{}   // completion line -> invoke line
	open := map[string]int{}
	for i, l := range lines {
		if l.Type == "invoke" {
			open[l.Process] = i
		} else if at, ok := open[l.Process]; ok {
			completion[at], invokeOf[i] = i, at
			delete(open, l.Process)
		}
	}
	kept := map[int]input{}
	var events, infos []porcupine.Event
	for i, l := range lines {
		if l.Type == "invoke" {
			c, done := completion[i]
			in := input{write: l.F == "write", info: !done || lines[c].Type == "info"}
			if in.write {
				in.value = valueOf(l.Value)
			}
			if (done && lines[c].Type == "fail") || (in.info && !in.write) {
				continue
			}
			kept[i] = in
			events = append(events, porcupine.Event{Kind: porcupine.CallEvent, Value: in, Id: i})
			if in.info {
				infos = append(infos, porcupine.Event{Kind: porcupine.ReturnEvent, Value: "", Id: i})
			}
			continue
		}
		at, paired := invokeOf[i]
		if in, ok := kept[at]; paired && ok && !in.info {
			events = append(events, porcupine.Event{Kind: porcupine.ReturnEvent, Value: valueOf(l.Value), Id: at})
		}
	}
	return append(events, infos...), sc.Err()
}

func main() {
	events, err := readEvents(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(porcupine.CheckEvents(register.ToModel(), events))
}
