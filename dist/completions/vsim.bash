# SPDX-License-Identifier: MIT
# bash completion for vsim (installed as share/bash-completion/completions/vsim).
# Completes the commands, each command's options (as `vsim CMD --help` lists
# them; tests/install-check.sh checks that they agree) and their values:
# scenes (*.yaml, *.yml) and sweep files, result files (*.h5), pictures and
# movies (*.png, *.mp4, *.gif), directories.

_vsim_files() { # _vsim_files GLOB-EXTENSIONS...: files with those extensions, and directories
  local IFS=$'\n' ext
  COMPREPLY=()
  for ext in "$@"; do
    COMPREPLY+=($(compgen -f -X "!*.$ext" -- "$cur"))
  done
  COMPREPLY+=($(compgen -d -- "$cur"))
  compopt -o filenames 2>/dev/null
}

_vsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
  local commands="run validate compare info xdmf sweep schema render plot help"
  local cmd="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) cmd=${COMP_WORDS[i]}; break ;;
    esac
  done

  if [[ -z $cmd ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "-h --help -V --version" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "$commands" -- "$cur"))
    fi
    return
  fi

  local opts=""
  case $cmd in
    run)
      opts="-o --output -f --force --frames --set --threads --max-memory -q --quiet --progress --no-progress --summary --resume -h --help"
      case $prev in
        -o|--output|--resume) _vsim_files h5; return ;;
        --summary) COMPREPLY=($(compgen -W "json" -- "$cur")); return ;;
        --frames|--threads|--max-memory) COMPREPLY=(); return ;;
        --set) COMPREPLY=($(compgen -W "time. solver. world. bodies. constraints. output." -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
      esac
      [[ $cur != -* ]] && { _vsim_files yaml yml; return; } ;;
    validate)
      opts="--set --frames -h --help"
      case $prev in
        --frames) COMPREPLY=(); return ;;
        --set) COMPREPLY=($(compgen -W "time. solver. world. bodies. constraints. output." -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
      esac
      [[ $cur != -* ]] && { _vsim_files yaml yml; return; } ;;
    compare)
      opts="--atol --rtol --ulps --only --json --junit -h --help"
      case $prev in
        --atol|--rtol|--ulps) COMPREPLY=(); return ;;
        --junit) _vsim_files xml; return ;;
        --only) COMPREPLY=($(compgen -W "/particles /observables /connectivity /solver" -- "$cur")); return ;;
      esac
      [[ $cur != -* ]] && { _vsim_files h5; return; } ;;
    info)
      opts="--json -h --help"
      [[ $cur != -* ]] && { _vsim_files h5; return; } ;;
    xdmf)
      opts="-o --output -h --help"
      case $prev in
        -o|--output) _vsim_files xmf; return ;;
      esac
      [[ $cur != -* ]] && { _vsim_files h5; return; } ;;
    sweep)
      opts="-o --output -j --jobs -f --force --list --point --collect --threads -q --quiet -h --help"
      case $prev in
        -o|--output) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null; return ;;
        -j|--jobs|--point|--threads) COMPREPLY=(); return ;;
      esac
      [[ $cur != -* ]] && { _vsim_files yaml yml; return; } ;;
    schema)
      opts="-h --help" ;;
    render)
      opts="-o --output --frame --frames --size --view --camera --look-at --zoom --fit --color --compare --fps -h --help"
      case $prev in
        -o|--output) _vsim_files png svg pdf mp4 gif; return ;;
        --compare) _vsim_files h5; return ;;
        --view) COMPREPLY=($(compgen -W "iso front side top" -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W "body speed strain" -- "$cur")); return ;;
        --fit) COMPREPLY=($(compgen -W "run frame" -- "$cur")); return ;;
        --frame|--frames|--size|--fps|--camera|--look-at|--zoom) COMPREPLY=(); return ;;
      esac
      [[ $cur != -* ]] && { _vsim_files h5; return; } ;;
    plot)
      opts="-o --output --series --size --log --linear -h --help"
      case $prev in
        -o|--output) _vsim_files png svg pdf; return ;;
        --series) COMPREPLY=($(compgen -W "constraint_error_max constraint_error_rms penetration_max energy_kinetic energy_potential constraints_alive overlap_max" -- "$cur")); return ;;
        --size) COMPREPLY=(); return ;;
      esac
      [[ $cur != -* ]] && { _vsim_files h5; return; } ;;
    help)
      COMPREPLY=($(compgen -W "$commands" -- "$cur"))
      return ;;
    *) return ;;
  esac
  COMPREPLY=($(compgen -W "$opts" -- "$cur"))
}

complete -F _vsim vsim
