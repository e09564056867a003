package code

// secrets are every secret found in the file (each sighting's value and
// its paired key): a proof's excerpt may show more of the file than its
// own finding's secret, and none of them may show.
func (f *file) secrets() []string {
	out := make([]string, 0, 2*len(f.sightings))
	for _, s := range f.sightings {
		out = append(out, s.raw)
		if s.pairRaw != "" {
			out = append(out, s.pairRaw)
		}
	}
	return out
}
