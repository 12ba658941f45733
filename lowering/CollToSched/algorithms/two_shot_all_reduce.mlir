// Two-shot all-reduce: a direct reduce-scatter (rank r sends part p of its
// buffer to rank p, which reduces the n contributions of its part) then a
// direct all-gather of the reduced parts. The buffer is n parts of
// q = k/n chunks (chunk_unit n). Channel 0 reduce-scatters and channel 1
// all-gathers, chunk by chunk: the all-gather of chunk j (waiting for
// channel 0 to finish it) overlaps the reduce-scatter of chunk j + 1.
// Bytes sent per rank: 2 (n-1)/n M. Steps: 2.
// Instructions: 4 (n-1) q per rank, 4 (n-1) k in all; transfers: 2 (n-1) k.
sched.schedule @two_shot_all_reduce collective = all_reduce algorithm = "two_shot"
    attributes {collc.chunk_unit = "n", collc.volume = "2 (n-1)/n M",
                collc.steps = "2"}
    description = "two_shot: direct reduce-scatter then direct all-gather, overlapped chunk by chunk; 2 steps, 2(n-1)/n M sent per rank" {
  // Reduce-scatter: 2 (n-1) instructions per chunk.
  sched.channel 0 {
    sched.if "n >= 2" {
      sched.for j = 0 to "k floordiv n" {
        sched.for d = 1 to n {
          sched.send to "(r + d) mod n"
              src = input["((r + d) mod n) * (k floordiv n) + j"]
        }
        sched.recv_reduce_copy from "(r - 1) mod n"
            src = input["r * (k floordiv n) + j"]
            dst = output["r * (k floordiv n) + j"]
        sched.for d = 2 to n {
          sched.recv_reduce_copy from "(r - d) mod n"
              src = output["r * (k floordiv n) + j"]
              dst = output["r * (k floordiv n) + j"]
        }
      }
    } else {
      // A group of one rank only copies.
      sched.copy src = input[0] dst = output[0] count = k
    }
  }
  // All-gather: chunk j of part r is complete after instruction
  // (j + 1) 2 (n-1) - 1 of channel 0.
  sched.channel 1 {
    sched.if "n >= 2" {
      sched.for j = 0 to "k floordiv n" {
        sched.send to "(r + 1) mod n" src = output["r * (k floordiv n) + j"]
            step = 1 after = [(channel 0, index "(j + 1) * 2 * (n - 1) - 1")]
        sched.for d = 2 to n {
          sched.send to "(r + d) mod n" src = output["r * (k floordiv n) + j"]
              step = 1
        }
        sched.for d = 1 to n {
          sched.recv from "(r - d) mod n"
              dst = output["((r - d) mod n) * (k floordiv n) + j"] step = 1
        }
      }
    }
  }
}
