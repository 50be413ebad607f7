//go:build testregistry

package main

import "github.com/basaltdev/basalt/functions/testfns"

// Built with -tags testregistry (compat/official does), the binary carries
// the functions-js suite's functions for BASALT_FUNCTIONS_TEST_REGISTRY.
func init() { testRegistryFunctions = testfns.Functions }
