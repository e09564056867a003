package dynamolocal

// Backend is the emulator's own endpoint, behind the proxy.
func (s *Server) Backend() string { return s.backend }

// Secret is what the emulator requires in SecretHeader (the proxy adds it).
func (s *Server) Secret() string { return s.secret }

// SecretHeader carries Secret.
const SecretHeader = secretHeader

// ProxyHandler is the proxy to target, for the benchmark of its own cost.
var ProxyHandler = proxyHandler
