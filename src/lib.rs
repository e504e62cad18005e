//! ferrocute
