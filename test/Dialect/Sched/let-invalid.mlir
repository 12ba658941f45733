// sched.let ops that the parser or the verifier rejects: names must be
// bound before use, new (no shadowing), plain and not reserved; values are
// well-formed expressions of the scope.
// RUN: collc-opt %s -split-input-file -verify-diagnostics

sched.schedule @unbound_after_body collective = all_gather {
  sched.channel 0 {
    sched.let p = "r + 1" {
    }
    // expected-error @+1 {{unknown name 'p'; in scope: r, n, k}}
    sched.send to p src = input[0]
  }
}

// -----

sched.schedule @later_name_in_value collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{unknown name 'b'; in scope: r, n, k}}
    sched.let a = "b + 1", b = 2 {
    }
  }
}

// -----

sched.schedule @own_name_in_value collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{unknown name 'a'; in scope: r, n, k}}
    sched.let a = "a + 1" {
    }
  }
}

// -----

sched.schedule @malformed_value collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected an expression}}
    sched.let a = "r +" {
    }
  }
}

// -----

sched.schedule @division_by_zero collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'floordiv' by 0: the divisor must be positive}}
    sched.let a = "r floordiv 0" {
    }
  }
}

// -----

sched.schedule @missing_value collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{expected '='}}
    sched.let a {
    }
  }
}

// -----

sched.schedule @duplicate collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'sched.let' op name 'a' is bound twice}}
    sched.let a = 1, a = 2 {
    }
  }
}

// -----

sched.schedule @shadows_let collective = all_gather {
  sched.channel 0 {
    sched.let a = 1 {
      // expected-error @+1 {{'sched.let' op name 'a' shadows the name of an enclosing sched.let}}
      sched.let a = 2 {
      }
    }
  }
}

// -----

sched.schedule @shadows_loop collective = all_gather {
  sched.channel 0 {
    sched.for s = 0 to n {
      // expected-error @+1 {{'sched.let' op name 's' shadows an enclosing loop's variable}}
      sched.let s = 2 {
      }
    }
  }
}

// -----

sched.schedule @shadows_channel_variable collective = all_gather {
  sched.channel c = 0 to 2 {
    // expected-error @+1 {{'sched.let' op name 'c' shadows an enclosing loop's variable}}
    sched.let c = 2 {
    }
  }
}

// -----

sched.schedule @shadows_parameter collective = all_gather params = {rings = 2} {
  sched.channel 0 {
    // expected-error @+1 {{'sched.let' op name 'rings' shadows the schedule's parameter}}
    sched.let rings = 2 {
    }
  }
}

// -----

sched.schedule @loop_shadows_let collective = all_gather {
  sched.channel 0 {
    sched.let s = 1 {
      // expected-error @+1 {{'sched.for' op loop variable 's' shadows the name of an enclosing sched.let}}
      sched.for s = 0 to n {
      }
    }
  }
}

// -----

sched.schedule @reserved collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'sched.let' op name 'k' is reserved (r, n, k, mod, floordiv, ceildiv)}}
    sched.let k = 2 {
    }
  }
}

// -----

sched.schedule @not_an_identifier collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'sched.let' op name 'a.b' is not a plain identifier ([A-Za-z_][A-Za-z0-9_]*)}}
    "sched.let"() ({
    ^bb0:
    }) {names = ["a.b"], values = [1]} : () -> ()
  }
}

// -----

sched.schedule @no_names collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'sched.let' op binds no name; write `sched.let NAME = EXPR { ... }`}}
    "sched.let"() ({
    ^bb0:
    }) {names = [], values = []} : () -> ()
  }
}

// -----

sched.schedule @more_names_than_values collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'sched.let' op binds 2 names to 1 values}}
    "sched.let"() ({
    ^bb0:
    }) {names = ["a", "b"], values = [1]} : () -> ()
  }
}

// -----

// The generic form: the second value must see the first name as a dim.
sched.schedule @value_dims collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'sched.let' op value of 'b' has 1 dims but 2 are in scope (r and 1 loop variable)}}
    "sched.let"() ({
    ^bb0:
    }) {names = ["a", "b"], values = [affine_map<(d0)[s0, s1] -> (d0 + 1)>, affine_map<(d0)[s0, s1] -> (d0)>]} : () -> ()
  }
}

// -----

// The body's expressions see the names as dims after the enclosing ones.
sched.schedule @body_dims collective = all_gather {
  sched.channel 0 {
    "sched.let"() ({
      // expected-error @+1 {{'sched.send' op peer ('to') has 1 dims but 2 are in scope (r and 1 loop variable)}}
      "sched.send"() {to = affine_map<(d0)[s0, s1] -> (d0 + 1)>, src = #sched<buffer input>, src_index = 0} : () -> ()
    }) {names = ["a"], values = [1]} : () -> ()
  }
}

// -----

// expected-error @+1 {{'sched.schedule' op may only hold sched.channel or sched.rank ops; found 'sched.let'}}
sched.schedule @outside_stream collective = all_gather {
  sched.let a = 1 {
  }
}

// -----

// expected-error @+1 {{'sched.let' op expects parent op to be one of 'sched.channel, sched.for, sched.if, sched.let'}}
sched.let a = 1 {
}

// -----

sched.schedule @foreign_op collective = all_gather {
  sched.channel 0 {
    // expected-error @+1 {{'sched.let' op may only hold sched instructions, sched.for, sched.if and sched.let; found 'sched.rank'}}
    sched.let a = 1 {
      sched.rank 0 {
      }
    }
  }
}
