package config

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Identity says which process of a parallel job this is, from the
// variables the launchers set in every rank's environment.
type Identity struct {
	// Rank is the process's global rank in the job, -1 when unknown.
	Rank int
	// LocalRank is its rank among the job's processes on this host, -1
	// when unknown. It is never taken for a global rank (docs/mpi.md §1 "The rank variables").
	LocalRank int
	// Size is the number of processes in the job, -1 when unknown.
	Size int
	// RankVar names the variable the global rank came from ("" when none).
	RankVar string
	// JobID is the batch system's or launcher's job id ("" when none).
	JobID string
}

// launcher is one launcher's (or process manager's) set of variables:
// the global rank, the local rank and the job size. A family's local rank
// and size are believed only when its global rank agrees with the rank
// in use, so that variables a batch system leaves in the environment of
// an mpirun started inside it (SLURM_PROCID=0 in every rank) are never
// mixed with the MPI launcher's.
type launcher struct{ rank, local, size string }

// launchers, in order of precedence: MPI launchers first (they set the
// rank of the MPI job), batch systems' task variables last (inherited by
// every rank when an MPI launcher runs inside a batch step).
var launchers = []launcher{
	{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_SIZE"}, // Open MPI's mpirun
	{"PMI_RANK", "MPI_LOCALRANKID", "PMI_SIZE"},                                    // MPICH's Hydra, Intel MPI, PMI-1/2 process managers
	{"PMIX_RANK", "", "PMIX_SIZE"},                                                 // PMIx servers (Open MPI 5, prterun)
	{"PALS_RANKID", "PALS_LOCAL_RANKID", ""},                                       // HPE PALS (mpiexec on Aurora)
	{"SLURM_PROCID", "SLURM_LOCALID", "SLURM_NTASKS"},                              // Slurm's srun
	{"FLUX_TASK_RANK", "FLUX_TASK_LOCAL_ID", "FLUX_JOB_SIZE"},                      // Flux
}

// jobIDVars name the job id, first found wins.
var jobIDVars = []string{"PBS_JOBID", "SLURM_JOB_ID", "FLUX_JOB_ID", "LSB_JOBID", "COBALT_JOBID"}

// ReadIdentity reads the process's place in its job from getenv.
func ReadIdentity(getenv func(string) string) Identity {
	id := Identity{Rank: -1, LocalRank: -1, Size: -1}
	for _, l := range launchers {
		if r, ok := nonNegative(getenv(l.rank)); ok {
			id.Rank, id.RankVar = r, l.rank
			break
		}
	}
	for _, l := range launchers {
		if id.Rank >= 0 {
			if r, ok := nonNegative(getenv(l.rank)); !ok || r != id.Rank {
				continue
			}
		} else if l.rank != "" && getenv(l.rank) != "" {
			continue
		}
		if v, ok := nonNegative(getenv(l.local)); ok && id.LocalRank < 0 && l.local != "" {
			id.LocalRank = v
		}
		if v, ok := nonNegative(getenv(l.size)); ok && v > 0 && id.Size < 0 && l.size != "" {
			id.Size = v
		}
	}
	for _, name := range jobIDVars {
		if v := getenv(name); v != "" {
			id.JobID = v
			break
		}
	}
	return id
}

func nonNegative(v string) (int, bool) {
	if v == "" {
		return 0, false
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// RankSet is a set of global ranks written as a list of ranks and
// inclusive ranges, e.g. "0,12-23". The zero value holds every rank.
type RankSet struct {
	ranges [][2]int // sorted, inclusive; nil: every rank
	text   string
}

// ParseRankSet reads "all" or a comma-separated list of ranks and
// inclusive ranges "a-b".
func ParseRankSet(v string) (RankSet, error) {
	v = strings.TrimSpace(v)
	if v == "" || v == "all" {
		return RankSet{}, nil
	}
	var rs RankSet
	for _, part := range strings.Split(v, ",") {
		part = strings.TrimSpace(part)
		a, b, isRange := strings.Cut(part, "-")
		lo, ok1 := nonNegative(a)
		hi := lo
		ok2 := true
		if isRange {
			hi, ok2 = nonNegative(b)
		}
		if !ok1 || !ok2 || hi < lo {
			return RankSet{}, fmt.Errorf("%q is not a rank or a range a-b with a <= b", part)
		}
		rs.ranges = append(rs.ranges, [2]int{lo, hi})
	}
	sort.Slice(rs.ranges, func(i, j int) bool { return rs.ranges[i][0] < rs.ranges[j][0] })
	rs.text = v
	return rs, nil
}

// All says whether the set holds every rank.
func (rs RankSet) All() bool { return rs.ranges == nil }

// Has says whether rank r is in the set. A process whose rank is unknown
// (r < 0) is in every set: the setting is about ranks of MPI jobs, and a
// process outside one is collected as usual (the session says so).
func (rs RankSet) Has(r int) bool {
	if rs.ranges == nil || r < 0 {
		return true
	}
	for _, g := range rs.ranges {
		if r >= g[0] && r <= g[1] {
			return true
		}
	}
	return false
}

// String is the set as it was written, or "all".
func (rs RankSet) String() string {
	if rs.ranges == nil {
		return "all"
	}
	return rs.text
}

// AffinityEntries reads ZE_AFFINITY_MASK (mask) with the rules of Intel's
// driver (docs/mpi.md §5 "ZE_AFFINITY_MASK") and returns, for each root
// device it leaves visible, the entry that selected it, in the driver's
// order: "3" (FLAT: the node's tile 3), "2" (COMPOSITE: card 2), "1.1"
// (COMPOSITE: tile 1 of card 1), "1.0+1.1" (COMPOSITE: both tiles of card
// 1 named one by one). composite is the hierarchy
// (ZE_FLAT_DEVICE_HIERARCHY=COMPOSITE). It returns nil when the mask is
// unset or "default", or when the entries that can select something are
// not exactly roots: zestall does not know the node's size, so
// out-of-range entries cannot be told from valid ones then, and guessing
// would name the wrong tile.
func AffinityEntries(mask string, composite bool, roots int) []string {
	mask = strings.TrimSpace(mask)
	if mask == "" || mask == "default" {
		return nil
	}
	type card struct {
		whole bool
		tiles []int
	}
	var flat []int
	cards := map[int]*card{}
	for _, e := range strings.Split(mask, ",") {
		parts := strings.Split(e, ".")
		idx := make([]int, 0, len(parts))
		for _, p := range parts {
			v, ok := nonNegative(p)
			if !ok {
				idx = nil
				break
			}
			idx = append(idx, v)
		}
		switch {
		case idx == nil || len(idx) > 2:
			// not a form the driver selects with (X.Y.Z: engines, not simulated)
		case !composite && len(idx) == 1:
			if !slices.Contains(flat, idx[0]) {
				flat = append(flat, idx[0])
			}
		case composite:
			c := cards[idx[0]]
			if c == nil {
				c = &card{}
				cards[idx[0]] = c
			}
			if len(idx) == 1 {
				c.whole = true
			} else if !slices.Contains(c.tiles, idx[1]) {
				c.tiles = append(c.tiles, idx[1])
			}
		}
	}
	var out []string
	if !composite {
		slices.Sort(flat)
		for _, v := range flat {
			out = append(out, strconv.Itoa(v))
		}
	} else {
		for _, n := range slices.Sorted(maps.Keys(cards)) {
			c := cards[n]
			if c.whole {
				out = append(out, strconv.Itoa(n))
				continue
			}
			slices.Sort(c.tiles)
			var ts []string
			for _, t := range c.tiles {
				ts = append(ts, fmt.Sprintf("%d.%d", n, t))
			}
			out = append(out, strings.Join(ts, "+"))
		}
	}
	if len(out) != roots {
		return nil
	}
	return out
}
