// passportcheck verifies a Campaign Ledger passport with Go's reference implementations:
// each entry's and each checkpoint's signed note with golang.org/x/mod/sumdb/note, each
// event's inclusion proof with golang.org/x/mod/sumdb/tlog, and the entries' hash chain
// with crypto/sha256. It knows nothing of the ledger's own code. An entry the player's phone
// cosigned is opened with its cosignature line added, by a note.Verifier for the phone's
// C2SP tlog-cosignature/v1 key (crypto/ed25519 over "cosignature/v1\ntime T\n" and the
// entry's text): sumdb/note parses the line and refuses the note if it does not verify.
//
// Usage: passportcheck FILE. Prints "ok ENTRIES EVENTS COSIGNED" or one line of error and
// exits 1.
package main

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
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

type cosignature struct {
	Vkey      string `json:"vkey"`
	Signature string `json:"signature"`
}

type entry struct {
	Note        string       `json:"note"`
	Vkey        string       `json:"vkey"`
	Checkpoint  string       `json:"checkpoint"`
	Events      []event      `json:"events"`
	Proofs      [][]string   `json:"proofs"`
	Cosignature *cosignature `json:"cosignature"`
}

// cosigner is a note.Verifier for a timestamped Ed25519 cosigner key (signature type 0x04,
// C2SP tlog-cosignature/v1): NAME+KEYID+BASE64(0x04 || KEY).
type cosigner struct {
	name string
	hash uint32
	key  ed25519.PublicKey
}

func (c cosigner) Name() string    { return c.name }
func (c cosigner) KeyHash() uint32 { return c.hash }
func (c cosigner) Verify(msg, sig []byte) bool {
	if len(sig) != 8+ed25519.SignatureSize {
		return false
	}
	t := binary.BigEndian.Uint64(sig[:8])
	signed := append([]byte("cosignature/v1\ntime "+strconv.FormatUint(t, 10)+"\n"), msg...)
	return ed25519.Verify(c.key, signed, sig[8:])
}

func newCosigner(vkey string) (cosigner, error) {
	name, rest, _ := strings.Cut(vkey, "+")
	hash16, key64, _ := strings.Cut(rest, "+")
	hash, err := strconv.ParseUint(hash16, 16, 32)
	if err != nil || len(hash16) != 8 {
		return cosigner{}, fmt.Errorf("malformed cosigner key")
	}
	key, err := base64.StdEncoding.DecodeString(key64)
	if err != nil || len(key) != 1+ed25519.PublicKeySize || key[0] != 0x04 {
		return cosigner{}, fmt.Errorf("malformed cosigner key")
	}
	id := sha256.Sum256(append([]byte(name+"\n"), key...))
	if binary.BigEndian.Uint32(id[:4]) != uint32(hash) {
		return cosigner{}, fmt.Errorf("cosigner key ID does not match")
	}
	return cosigner{name, uint32(hash), ed25519.PublicKey(key[1:])}, nil
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
	events, cosigned := 0, 0
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
		if e.Cosignature != nil {
			cv, err := newCosigner(e.Cosignature.Vkey)
			if err != nil {
				fail("entry %d: cosignature: %v", i+1, err)
			}
			both := e.Note + e.Cosignature.Signature + "\n"
			opened, err := note.Open([]byte(both), note.VerifierList(v, cv))
			if err != nil {
				fail("entry %d: cosignature: %v", i+1, err)
			}
			if len(opened.Sigs) != 2 {
				fail("entry %d: cosignature: not by the key it names", i+1)
			}
			cosigned++
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
	fmt.Printf("ok %d %d %d\n", len(p.Entries), events, cosigned)
}
