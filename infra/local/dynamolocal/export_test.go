package dynamolocal

// Backend is the emulator's own endpoint, behind the proxy (for the benchmark).
func (s *Server) Backend() string { return s.backend }

// ProxyHandler is the proxy to target, for the benchmark of its own cost.
var ProxyHandler = proxyHandler
