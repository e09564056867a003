// Package tooldef holds what every scanner tool declares the same way:
// its name, its cost in credits and its time bound (the Name, Cost and
// Timeout of tools.Tool). A tool embeds Base and adds Description,
// InputSchema and Run.
package tooldef

import "time"

// Base implements Name, Cost and Timeout of tools.Tool.
type Base struct {
	name    string
	cost    int
	timeout time.Duration
}

// New returns the Base of the tool called name, costing cost credits and
// bounded by timeout.
func New(name string, cost int, timeout time.Duration) Base {
	return Base{name: name, cost: cost, timeout: timeout}
}

// Name implements tools.Tool.
func (b Base) Name() string { return b.name }

// Cost implements tools.Tool.
func (b Base) Cost() int { return b.cost }

// Timeout implements tools.Tool.
func (b Base) Timeout() time.Duration { return b.timeout }
