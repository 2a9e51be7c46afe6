package zebin

import "fmt"

// GFXCORE_FAMILY values (gmmlib/IGC igfxfmid.h) as found in the gfxCore note.
const (
	GfxCoreXeHP   = 0x0c05 // IGFX_XE_HP_CORE
	GfxCoreXeHPG  = 0x0c07 // IGFX_XE_HPG_CORE: DG2, ATS-M, MTL, ARL
	GfxCoreXeHPC  = 0x0c08 // IGFX_XE_HPC_CORE: PVC
	GfxCoreXe2HPG = 0x0c09 // IGFX_XE2_HPG_CORE: LNL, BMG
	GfxCoreXe3    = 0x1e00 // IGFX_XE3_CORE: PTL
	GfxCoreXe3P   = 0x2300 // IGFX_XE3P_CORE
)

// PRODUCT_FAMILY values (igfxfmid.h) as found in the product-family note.
const (
	ProductDG2 = 1270 // IGFX_DG2 (0x4f6)
	ProductPVC = 1271 // IGFX_PVC (0x4f7)
	ProductMTL = 1272 // IGFX_METEORLAKE
	ProductARL = 1273 // IGFX_ARROWLAKE
	ProductBMG = 1274 // IGFX_BMG
	ProductLNL = 1275 // IGFX_LUNARLAKE
	ProductPTL = 1300 // IGFX_PTL
)

// IGAPlatform is an IGA iga_gen_t value, as passed to kv_create
// (docs/eu-stall-sampling.md §11.1 "Platform values").
type IGAPlatform int32

// IGA platforms.
const (
	IGAUnknown   IGAPlatform = 0
	IGA_XE       IGAPlatform = 0x01000000 // TGL
	IGA_XE_HP    IGAPlatform = 0x01000001
	IGA_XE_HPG   IGAPlatform = 0x01000002 // DG2, ATS-M, MTL, ARL
	IGA_XE_HPC   IGAPlatform = 0x01000004 // PVC
	IGA_XE2      IGAPlatform = 0x02000000 // LNL, BMG; not in Debian's IGA 1.1.0
	IGA_XE3      IGAPlatform = 0x03000000 // PTL; not in Debian's IGA
	IGA_XE3P_XPC IGAPlatform = 0x03000003 // Xe3P-XPC; not in Debian's IGA
)

// The tables below are switches, not package-level maps: a map is built
// when libzestall.so is loaded, in every profiled process
// (docs/level-zero-loader.md §8.4 "Start-up cost of `LD_PRELOAD`").

// igaName is IGA's name of p, "" for a value it does not name.
func igaName(p IGAPlatform) string {
	switch p {
	case IGA_XE:
		return "xe"
	case IGA_XE_HP:
		return "xehp"
	case IGA_XE_HPG:
		return "xehpg"
	case IGA_XE_HPC:
		return "xehpc"
	case IGA_XE2:
		return "xe2"
	case IGA_XE3:
		return "xe3"
	case IGA_XE3P_XPC:
		return "xe3p_xpc"
	}
	return ""
}

// String returns IGA's platform name ("xehpc", ...).
func (p IGAPlatform) String() string {
	if s := igaName(p); s != "" {
		return s
	}
	return fmt.Sprintf("IGAPlatform(%#x)", int32(p))
}

// igaByCore is the IGA platform of a GFX core family, IGAUnknown if none.
func igaByCore(gfxCore uint32) IGAPlatform {
	switch gfxCore {
	case GfxCoreXeHP:
		return IGA_XE_HP
	case GfxCoreXeHPG:
		return IGA_XE_HPG
	case GfxCoreXeHPC:
		return IGA_XE_HPC
	case GfxCoreXe2HPG:
		return IGA_XE2
	case GfxCoreXe3:
		return IGA_XE3
	case GfxCoreXe3P:
		return IGA_XE3P_XPC // [I] the only Xe3P platform IGA names
	}
	return IGAUnknown
}

// igaByProduct is the IGA platform of a product family, IGAUnknown if none.
func igaByProduct(productFamily uint32) IGAPlatform {
	switch productFamily {
	case ProductDG2, ProductMTL, ProductARL:
		return IGA_XE_HPG
	case ProductPVC:
		return IGA_XE_HPC
	case ProductBMG, ProductLNL:
		return IGA_XE2
	case ProductPTL:
		return IGA_XE3
	}
	return IGAUnknown
}

// IGAPlatformFor chooses the IGA platform from the gfxCore note, as PTI does
// (0x0c05 → XE_HP, 0x0c07 → XE_HPG, 0x0c08 → XE_HPC, Xe2 → XE2, Xe3 → XE3).
// When gfxCore is 0 — Debian's IGC 1.0.12504 writes 0 — it falls back to the
// product family (IGFX_PVC → XE_HPC, IGFX_DG2/MTL/ARL → XE_HPG, BMG/LNL →
// XE2, PTL → XE3). It fails for anything else.
func IGAPlatformFor(gfxCore, productFamily uint32) (IGAPlatform, error) {
	if gfxCore != 0 {
		if p := igaByCore(gfxCore); p != IGAUnknown {
			return p, nil
		}
		return IGAUnknown, fmt.Errorf("zebin: no IGA platform for GFX core family %#x", gfxCore)
	}
	if p := igaByProduct(productFamily); p != IGAUnknown {
		return p, nil
	}
	return IGAUnknown, fmt.Errorf("zebin: no IGA platform for product family %d (GFX core family 0)", productFamily)
}
