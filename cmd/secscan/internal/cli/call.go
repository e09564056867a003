package cli

import (
	"fmt"

	"secscan/cmd/secscan/internal/client"
	"secscan/cmd/secscan/internal/table"
)

// call is what most commands do first: one request with the configured
// client, its error reported as the API's (apiError).
func call[T any](a *app, do func(*client.Client) (T, error)) (T, error) {
	c, err := a.client()
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := do(c)
	return v, apiError(err)
}

// targetCall is call for a command about the target arg names (a target
// id, or a domain it looks up): do gets the target's id.
func targetCall[T any](a *app, arg string, do func(c *client.Client, id string) (T, error)) (T, error) {
	c, id, err := a.targetClient(arg)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := do(c, id)
	return v, apiError(err)
}

// showf prints what a command did: v as JSON with --json, else the line
// format and args make, for people.
func (a *app) showf(v any, format string, args ...any) error {
	if a.jsonOut {
		return a.printJSON(v)
	}
	fmt.Fprintf(a.out(), format, args...)
	return nil
}

// removed says that the thing with id is gone.
func (a *app) removed(id string) error {
	return a.showf(map[string]any{"id": id, "removed": true}, "Removed %s.\n", id)
}

// showList prints a list: as JSON with --json ([] when empty), else the
// line empty when there is nothing, else the table rows builds.
func showList[T any](a *app, items []T, empty string, rows func([]T) ([]table.Column, [][]string)) error {
	if a.jsonOut {
		if items == nil {
			items = []T{}
		}
		return a.printJSON(items)
	}
	if len(items) == 0 {
		fmt.Fprintln(a.out(), empty)
		return nil
	}
	return a.writeTable(rows(items))
}
