//! Engines: what a [`Tensor`](super::Tensor) reads its elements from.
//!
//! An engine is a linear run of elements; the tensor's layout maps coordinates into it.
//! Host engines ([`HostEngine`]) hand out the elements; other engines (device memory, see
//! `ferrocute::runtime::Device`) only state their length, so that a tensor over them
//! can be described and checked but not read on the host.

/// A linear run of elements a tensor's layout indexes into.
///
/// ```
/// use ferrocute_layout::tensor::engine::Engine;
/// assert_eq!(Engine::len(&[1.0f32; 6]), 6);
/// assert!(Engine::is_empty(&Vec::<u8>::new()));
/// ```
pub trait Engine {
    /// The element type.
    type Elem;
    /// How many elements the engine holds.
    fn len(&self) -> usize;
    /// Whether it holds none.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An engine in host memory: its elements can be read.
///
/// ```
/// use ferrocute_layout::tensor::engine::HostEngine;
/// let v = vec![1, 2, 3];
/// assert_eq!(v.as_slice(), HostEngine::as_slice(&v));
/// ```
pub trait HostEngine: Engine {
    /// The elements.
    fn as_slice(&self) -> &[Self::Elem];
}

/// A host engine whose elements can be written.
///
/// ```
/// use ferrocute_layout::tensor::engine::HostEngineMut;
/// let mut a = [0u8; 4];
/// HostEngineMut::as_mut_slice(&mut a)[2] = 7;
/// assert_eq!(a, [0, 0, 7, 0]);
/// ```
pub trait HostEngineMut: HostEngine {
    /// The elements, mutably.
    fn as_mut_slice(&mut self) -> &mut [Self::Elem];
}

macro_rules! host_engine {
    ($(impl<$($g:tt),*> for $t:ty, mut: $m:tt;)+) => {$(
        impl<$($g),*> Engine for $t {
            type Elem = T;
            fn len(&self) -> usize {
                <[T]>::len(self.as_ref())
            }
        }
        impl<$($g),*> HostEngine for $t {
            #[inline(always)]
            fn as_slice(&self) -> &[T] {
                self.as_ref()
            }
        }
        host_engine!(@mut $m, impl<$($g),*> for $t);
    )+};
    (@mut yes, impl<$($g:tt),*> for $t:ty) => {
        impl<$($g),*> HostEngineMut for $t {
            #[inline(always)]
            fn as_mut_slice(&mut self) -> &mut [T] {
                self.as_mut()
            }
        }
    };
    (@mut no, impl<$($g:tt),*> for $t:ty) => {};
}

host_engine! {
    impl<'a, T> for &'a [T], mut: no;
    impl<'a, T> for &'a mut [T], mut: yes;
    impl<T> for Vec<T>, mut: yes;
    impl<T> for Box<[T]>, mut: yes;
}

impl<T, const N: usize> Engine for [T; N] {
    type Elem = T;
    fn len(&self) -> usize {
        N
    }
}

impl<T, const N: usize> HostEngine for [T; N] {
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

impl<T, const N: usize> HostEngineMut for [T; N] {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}
