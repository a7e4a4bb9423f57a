package exposure

// DescriptorHash exposes a tool's descriptor hash to the benchmarks.
func DescriptorHash(t Tool) [32]byte { return descriptorHash(t) }
