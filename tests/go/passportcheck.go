// passportcheck verifies a Campaign Ledger passport with Go's reference implementations:
// each entry's and each checkpoint's signed note with golang.org/x/mod/sumdb/note, each
// event's inclusion proof with golang.org/x/mod/sumdb/tlog, and the entries' hash chain
// with crypto/sha256. It knows nothing of the ledger's own code.
//
// Usage: passportcheck FILE. Prints "ok ENTRIES EVENTS" or one line of error and exits 1.
package main

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type event struct {
	Seq  int64  `json:"seq"`
	Hash string `json:"hash"`
}

type entry struct {
	Note       string     `json:"note"`
	Vkey       string     `json:"vkey"`
	Checkpoint string     `json:"checkpoint"`
	Events     []event    `json:"events"`
	Proofs     [][]string `json:"proofs"`
}

type passport struct {
	Format   string  `json:"format"`
	Passport string  `json:"passport"`
	Entries  []entry `json:"entries"`
}

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func b64(s string) tlog.Hash {
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(raw) != tlog.HashSize {
		fail("not a base64 hash: %q", s)
	}
	var h tlog.Hash
	copy(h[:], raw)
	return h
}

func main() {
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	var p passport
	if err := json.Unmarshal(data, &p); err != nil {
		fail("%v", err)
	}
	previous := strings.Repeat("0", 64)
	events := 0
	for i, e := range p.Entries {
		v, err := note.NewVerifier(e.Vkey)
		if err != nil {
			fail("entry %d: key: %v", i+1, err)
		}
		n, err := note.Open([]byte(e.Note), note.VerifierList(v))
		if err != nil {
			fail("entry %d: %v", i+1, err)
		}
		lines := strings.Split(n.Text, "\n")
		if lines[0] != "campaign-ledger chronicle v1" {
			fail("entry %d: not a chronicle entry", i+1)
		}
		fields := map[string]string{}
		for _, line := range lines[1:] {
			if k, val, ok := strings.Cut(line, " "); ok {
				fields[k] = val
			}
		}
		if fields["previous"] != previous {
			fail("entry %d: the chain is broken", i+1)
		}
		sum := sha256.Sum256([]byte(n.Text))
		previous = hex.EncodeToString(sum[:])
		c, err := note.Open([]byte(e.Checkpoint), note.VerifierList(v))
		if err != nil {
			fail("entry %d: checkpoint: %v", i+1, err)
		}
		cp := strings.Split(c.Text, "\n")
		if cp[0] != v.Name() || fields["checkpoint"] != cp[1]+" "+cp[2] {
			fail("entry %d: the checkpoint is not the one the entry names", i+1)
		}
		size, err := strconv.ParseInt(cp[1], 10, 64)
		if err != nil {
			fail("entry %d: checkpoint size: %v", i+1, err)
		}
		root := b64(cp[2])
		for j, ev := range e.Events {
			raw, err := hex.DecodeString(ev.Hash)
			if err != nil {
				fail("entry %d: event %d: %v", i+1, ev.Seq, err)
			}
			var proof tlog.RecordProof
			for _, h := range e.Proofs[j] {
				proof = append(proof, b64(h))
			}
			leaf := tlog.RecordHash(raw)
			if err := tlog.CheckRecord(proof, size, root, ev.Seq-1, leaf); err != nil {
				fail("entry %d: event %d: %v", i+1, ev.Seq, err)
			}
			events++
		}
	}
	fmt.Printf("ok %d %d\n", len(p.Entries), events)
}
