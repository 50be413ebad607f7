package main

import (
	"os"
	"syscall"
)

// canEnter reports whether a user with uid/gid may traverse the folder st.
func canEnter(st os.FileInfo, uid, gid int) bool {
	mode := st.Mode().Perm()
	if mode&0o001 != 0 {
		return true
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	if int(sys.Uid) == uid {
		return mode&0o100 != 0
	}
	if int(sys.Gid) == gid {
		return mode&0o010 != 0
	}
	return false
}
