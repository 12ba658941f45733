// Double binary tree all-reduce (NCCL's): two binary trees each reduce half
// of the buffer to their root and broadcast it back, pipelined chunk by
// chunk. Tree t (t = 0, 1) handles chunks [t h, (t + 1) h), h = k / 2
// (chunk_unit 2). Both are NCCL's in-order tree over positions 0..n-1
// (x with lowest set bit b: parent x - b or x + b, children x - b/2 and
// x + l, l the largest power of two <= b/2 below n - x; root 0 with the one
// child 2^floor(log2(n-1))); rank r sits at x = (r - t) mod n. Interior
// positions are even, so the shift makes every rank a leaf in one tree
// (for odd n all but rank 0). Channel t reduces up the tree t, channel
// 2 + t broadcasts down it; the root's broadcast of chunk j waits for its
// reduction on channel t, so reduction and broadcast overlap.
// Bytes sent per rank: (M/2) per tree edge at the rank (its parent and
// children): at most 2 M (interior with 2 children in one tree, leaf in the
// other), 2 (n-1)/n M on average. Steps: 2 ceil(log2 n) + chunks - 1
// (up and down the trees, `chunks` chunks per tree pipelined).
// Instructions: 2 (n + floor((n-2)/2)) per chunk and tree, 2 k (n +
// floor((n-2)/2)) in all; transfers: 2 (n-1) k.
sched.schedule @double_binary_tree_all_reduce collective = all_reduce
    algorithm = "double_binary_tree"
    attributes {collc.chunk_unit = 2,
                collc.volume = "<= 2 M per rank (M/2 per tree edge), 2 (n-1)/n M on average",
                collc.steps = "2 ceil(log2 n) + chunks - 1 (pipelined)"}
    description = "double_binary_tree: two complementary binary trees, each reducing and broadcasting half the buffer, pipelined; ~2 log2 n steps, <= 2M sent per rank" {
  // Reduction up tree c.
  sched.channel c = 0 to 2 {
    sched.for x = "(r - c) mod n" to "(r - c) mod n + 1" {
      sched.for j = "c * (k floordiv 2)" to "(c + 1) * (k floordiv 2)" {
        sched.if "x == 0" {
          // The root; its child is the largest power of two below n. A
          // group of one rank only copies.
          sched.if "n == 1" {
            sched.copy src = input[j] dst = output[j]
          }
          sched.for b = 1 to n step * 2 {
            sched.if "2 * b >= n" {
              sched.recv_reduce_copy from "(b + c) mod n" src = input[j]
                  dst = output[j]
            }
          }
        } else {
          sched.for b = 1 to n step * 2 {
            sched.if "x mod (2 * b) == b" {
              // b: the lowest set bit of x; u: the parent.
              sched.for u = "x + b - 2 * b * ((x mod (4 * b)) floordiv (2 * b) + (x + b) floordiv n - ((x mod (4 * b)) floordiv (2 * b)) * ((x + b) floordiv n))"
                  to "x + b - 2 * b * ((x mod (4 * b)) floordiv (2 * b) + (x + b) floordiv n - ((x mod (4 * b)) floordiv (2 * b)) * ((x + b) floordiv n)) + 1" {
                sched.if "b == 1" {
                  sched.send to "(u + c) mod n" src = input[j]
                } else {
                  sched.if "x == n - 1" {
                    sched.recv_reduce_send from "(x - b floordiv 2 + c) mod n"
                        to "(u + c) mod n" src = input[j]
                  } else {
                    sched.recv_reduce_copy from "(x - b floordiv 2 + c) mod n"
                        src = input[j] dst = output[j]
                    // The second child x + l: 2 l >= m = min(n - x, b).
                    sched.for m = "b - (b - n + x) * ((b + x - 1) floordiv n)"
                        to "b - (b - n + x) * ((b + x - 1) floordiv n) + 1" {
                      sched.for l = 1 to b step * 2 {
                        sched.if "x + l < n, 2 * l >= m" {
                          sched.recv_reduce_send from "(x + l + c) mod n"
                              to "(u + c) mod n" src = output[j]
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  // Broadcast down tree c - 2.
  sched.channel c = 2 to 4 {
    sched.for x = "(r - c + 2) mod n" to "(r - c + 2) mod n + 1" {
      sched.for j = "(c - 2) * (k floordiv 2)" to "(c - 1) * (k floordiv 2)" {
        sched.if "x == 0" {
          sched.for b = 1 to n step * 2 {
            sched.if "2 * b >= n" {
              sched.send to "(b + c - 2) mod n" src = output[j] step = 1
                  after = [(channel "c - 2", index "j - (c - 2) * (k floordiv 2)")]
            }
          }
        } else {
          sched.for b = 1 to n step * 2 {
            sched.if "x mod (2 * b) == b" {
              sched.for u = "x + b - 2 * b * ((x mod (4 * b)) floordiv (2 * b) + (x + b) floordiv n - ((x mod (4 * b)) floordiv (2 * b)) * ((x + b) floordiv n))"
                  to "x + b - 2 * b * ((x mod (4 * b)) floordiv (2 * b) + (x + b) floordiv n - ((x mod (4 * b)) floordiv (2 * b)) * ((x + b) floordiv n)) + 1" {
                sched.if "b == 1" {
                  sched.recv from "(u + c - 2) mod n" dst = output[j] step = 1
                } else {
                  sched.recv_copy_send from "(u + c - 2) mod n"
                      to "(x - b floordiv 2 + c - 2) mod n" dst = output[j]
                      step = 1
                  sched.if "x <= n - 2" {
                    sched.for m = "b - (b - n + x) * ((b + x - 1) floordiv n)"
                        to "b - (b - n + x) * ((b + x - 1) floordiv n) + 1" {
                      sched.for l = 1 to b step * 2 {
                        sched.if "x + l < n, 2 * l >= m" {
                          sched.send to "(x + l + c - 2) mod n" src = output[j]
                              step = 1
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
