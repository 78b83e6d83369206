// Arrays of an element an object, tens of millions long (the census's
// object addresses, the dominator tree's arrays): mappings of their own,
// reused once freed (big_array.cpp), where operator new would map fresh
// memory for each one and fault it in page by page. Smaller arrays come
// from operator new as usual.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace ljcore::gc {

// Arrays of at least this many bytes are mapped.
constexpr size_t big_array_bytes = size_t(1) << 20;

// Memory for an array of bytes, its contents undefined (a freed array's,
// or zeros); throws std::bad_alloc when none can be had.
void *map_big_array(size_t bytes);
void unmap_big_array(void *p, size_t bytes);

template <typename T> struct BigAllocator {
	using value_type = T;
	BigAllocator() = default;
	template <typename U> BigAllocator(const BigAllocator<U> &) {}

	T *allocate(size_t n)
	{
		if (n > SIZE_MAX / sizeof(T))
			throw std::bad_array_new_length();
		if (n * sizeof(T) >= big_array_bytes)
			return static_cast<T *>(map_big_array(n * sizeof(T)));
		return std::allocator<T>().allocate(n);
	}
	void deallocate(T *p, size_t n)
	{
		if (n * sizeof(T) >= big_array_bytes)
			unmap_big_array(p, n * sizeof(T));
		else
			std::allocator<T>().deallocate(p, n);
	}
	friend bool operator==(const BigAllocator &, const BigAllocator &) { return true; }
};

template <typename T> using BigArray = std::vector<T, BigAllocator<T>>;

} // namespace ljcore::gc
