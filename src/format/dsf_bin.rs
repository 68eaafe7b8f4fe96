//! Binary DSF (`XPLNEDSF`), plain or 7-Zip compressed. (Being written.)
