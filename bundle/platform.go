package bundle

import (
	"debug/elf"
	"debug/macho"
	"debug/pe"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/fisk-mcp/fisk-mcp/exposure"
)

// Platform is an operating system and architecture, as Go names them.
type Platform struct{ OS, Arch string }

func (p Platform) String() string { return p.OS + "/" + p.Arch }

// Supported lists the operating systems fisk-mcp runs on: it supervises
// commands as Unix process groups, which Windows has not. Claude Desktop
// runs on macOS and Windows, so a bundle for it is built on a Mac.
var Supported = []string{"darwin", "linux"}

// ErrUnsupportedPlatform is wrapped by the errors that refuse a platform
// fisk-mcp does not run on, or a binary built for one.
var ErrUnsupportedPlatform = errors.New("fisk-mcp runs on Linux and macOS only")

// ErrPlatformMismatch is wrapped by the error that refuses an app built
// for another platform than the fisk-mcp being packed.
var ErrPlatformMismatch = errors.New("the app is built for another platform")

// Host is the platform of the running fisk-mcp, the executable a bundle
// packs.
func Host() (Platform, error) {
	p := Platform{OS: runtime.GOOS, Arch: runtime.GOARCH}
	return p, p.check()
}

func (p Platform) check() error {
	if !slices.Contains(Supported, p.OS) {
		return fmt.Errorf("cannot bundle for %s: %w; build the bundle on the Mac (or Linux machine) it is for", p, ErrUnsupportedPlatform)
	}
	return nil
}

// node names the platform's system as Node.js's process.platform does,
// which the manifest's compatibility uses.
func (p Platform) node() string {
	if p.OS == "windows" {
		return "win32"
	}
	return p.OS
}

// CheckBinary refuses an app binary that cannot run on p: an executable
// for Windows or another system, or for another architecture (a macOS
// universal binary passes when it holds p's). A file of no executable
// format known here (a script) is not judged. The app has just been
// introspected on this machine, so a mismatch means an emulator ran it
// (Rosetta, binfmt), which the person's machine may lack.
func CheckBinary(path string, p Platform) error {
	got, ok, err := binaryPlatforms(path)
	if err != nil || !ok {
		return err
	}
	if slices.Contains(got, p) {
		return nil
	}
	for _, g := range got {
		if !slices.Contains(Supported, g.OS) {
			return fmt.Errorf("app %s is built for %s: %w; bundle a build of it for %s", path, g, ErrUnsupportedPlatform, p)
		}
	}
	return fmt.Errorf("app %s is built for %v, fisk-mcp for %s: %w; bundle a build of the app for %s, or refer to an installed one with --installed-apps", path, got, p, ErrPlatformMismatch, p)
}

// binaryPlatforms reads the platforms an executable is built for; ok is
// false for a file of no known executable format.
func binaryPlatforms(path string) (_ []Platform, ok bool, _ error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, fmt.Errorf("app %s: %w", path, err)
	}
	defer f.Close()
	if e, err := elf.NewFile(f); err == nil {
		sys := "linux"
		if e.OSABI != elf.ELFOSABI_NONE && e.OSABI != elf.ELFOSABI_LINUX {
			sys = strings.ToLower(strings.TrimPrefix(e.OSABI.String(), "ELFOSABI_"))
		}
		return []Platform{{sys, archOf(elfArch, e.Machine)}}, true, nil
	}
	if m, err := macho.NewFile(f); err == nil {
		return []Platform{{"darwin", archOf(machoArch, m.Cpu)}}, true, nil
	}
	if fat, err := macho.NewFatFile(f); err == nil {
		var out []Platform
		for _, a := range fat.Arches {
			out = append(out, Platform{"darwin", archOf(machoArch, a.Cpu)})
		}
		return out, true, nil
	}
	if w, err := pe.NewFile(f); err == nil {
		return []Platform{{"windows", archOf(peArch, w.Machine)}}, true, nil
	}
	return nil, false, nil
}

// archOf names an architecture as Go does, or by its number when no Go
// port has it.
func archOf[K comparable](names map[K]string, k K) string {
	if n, ok := names[k]; ok {
		return n
	}
	return fmt.Sprintf("machine-%v", k)
}

var (
	elfArch   = map[elf.Machine]string{elf.EM_X86_64: "amd64", elf.EM_AARCH64: "arm64", elf.EM_386: "386", elf.EM_ARM: "arm", elf.EM_RISCV: "riscv64", elf.EM_PPC64: "ppc64le", elf.EM_S390: "s390x"}
	machoArch = map[macho.Cpu]string{macho.CpuAmd64: "amd64", macho.CpuArm64: "arm64"}
	peArch    = map[uint16]string{pe.IMAGE_FILE_MACHINE_AMD64: "amd64", pe.IMAGE_FILE_MACHINE_ARM64: "arm64", pe.IMAGE_FILE_MACHINE_I386: "386"}
)

// ForHost sets s's platform to the host's (see Host) and its apps to
// apps, checking each binary (see CheckBinary); installed says they are
// referred to, not copied (see App.Installed). An installed app is the
// person's own build, so only one for a system fisk-mcp does not run on is
// refused.
func (s *Spec) ForHost(apps []exposure.App, installed bool) (err error) {
	if s.Platform, err = Host(); err != nil {
		return err
	}
	for _, a := range apps {
		if err := CheckBinary(a.Path, s.Platform); err != nil && !(installed && errors.Is(err, ErrPlatformMismatch)) {
			return err
		}
		s.Apps = append(s.Apps, App{Prefix: a.Prefix, Path: a.Path, Installed: installed})
	}
	return nil
}
