package collector

// platformName names the GPU platform of a PCI device id, for display and
// for choosing decoders; "" when unknown. Ranges from Intel's published
// device-id lists (compute-runtime device_ids_configs_*.h).
func platformName(id uint32) string {
	switch {
	case id == 0x0BD0:
		return "PVC-XL"
	case id >= 0x0BD4 && id <= 0x0BDB, id == 0x0B69, id == 0x0B6E:
		return "PVC"
	case id >= 0xE202 && id <= 0xE212:
		return "BMG"
	case id >= 0x6420 && id <= 0x64B0:
		return "LNL"
	case id >= 0x5690 && id <= 0x56C1:
		return "DG2"
	}
	return ""
}
