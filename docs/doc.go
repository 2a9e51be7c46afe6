// Package docs holds no code. The directory keeps zestall's reference
// documents (level-zero-loader.md, eu-stall-sampling.md; see README.md), and
// the package's test checks that every citation of them in the repository
// points at a document, section and hazard that exist, and that nothing in
// the repository refers to files outside it.
package docs
