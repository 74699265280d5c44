# Records Puppet 7.23's parse of every input of the Puppet language corpus
# (test/fixtures/puppet-lang/inputs/**.pp and **.epp) into
# test/fixtures/puppet-lang/recorded.json, which test/puppet/lang/corpus.test.ts
# compares with tend's parse (no Puppet needed at test time).
#
#   ruby scripts/record-puppet-parser.rb [--gather]
#
# For each input it records what `puppet parser dump --format json` shows:
# the PN JSON of the parse without validation ("pn"), or the syntax error
# (message without position, line, column, issue code), and separately the
# first validation error Puppet's checker reports ("validation"), as `dump`
# and `validate` show it, and every diagnostic of the checker ("diagnostics":
# errors, warnings and deprecations with their positions).
#
# --gather first (re)builds the generated inputs: the manifests of the
# modules in /usr/share/puppet/modules, the .pp/.epp files of puppetlabs/puppet
# 7.23.0 and the manifests embedded in its specs (both from the bare mirror
# in /work/.mirror), and the code blocks of puppetlabs/puppet-specifications
# language/*.md, the strings its parser and evaluator specs parse, and 400 mutants (one character deleted, inserted or replaced)
# of the handwritten and module inputs. Handwritten inputs (handwritten/,
# errors/, epp/, validation/) are kept.
$VERBOSE = nil # Puppet's lexer compiles regexes of the inputs; Ruby warns about some
require 'puppet'
require 'puppet/pops'
require 'puppet/pops/pn'
require 'json'
require 'fileutils'
require 'open3'

ROOT = File.expand_path('..', __dir__)
FIXTURES = File.join(ROOT, 'test', 'fixtures', 'puppet-lang')
INPUTS = File.join(FIXTURES, 'inputs')
PUPPET_MIRROR = '/work/.mirror/puppetlabs+puppet/repo'
SPECS_MIRROR = '/work/.mirror/puppetlabs+puppet-specifications/repo'
SNIPPETS = '/work/shared/reference/puppet/extract_snippets.py'

def git(repo, *args)
  out, status = Open3.capture2('git', "--git-dir=#{repo}", *args, binmode: true)
  raise "git #{args.join(' ')} failed" unless status.success?
  out.force_encoding('UTF-8')
end

def write(path, text)
  FileUtils.mkdir_p(File.dirname(path))
  File.binwrite(path, text)
end

def gather_modules
  dir = File.join(INPUTS, 'modules')
  FileUtils.rm_rf(dir)
  Dir.glob('/usr/share/puppet/modules/*/{manifests,templates,types,functions}/**/*.{pp,epp}').sort.each do |f|
    rel = f.sub('/usr/share/puppet/modules/', '')
    write(File.join(dir, rel), File.binread(f))
  end
end

def gather_puppet_repo
  dir = File.join(INPUTS, 'puppet-repo')
  FileUtils.rm_rf(dir)
  git(PUPPET_MIRROR, 'ls-tree', '-r', '--name-only', '7.23.0').split("\n").grep(/\.(pp|epp)\z/).each do |path|
    write(File.join(dir, path), git(PUPPET_MIRROR, 'show', "7.23.0:#{path}"))
  end
end

def gather_spec_snippets
  dir = File.join(INPUTS, 'spec-snippets')
  FileUtils.rm_rf(dir)
  tmp = Dir.mktmpdir('record-puppet-parser-')
  begin
    %w[spec/integration/parser spec/unit/functions spec/unit/pops/parser spec/unit/pops/evaluator].each do |sub|
      git(PUPPET_MIRROR, 'ls-tree', '-r', '--name-only', '7.23.0', sub).split("\n").each do |path|
        write(File.join(tmp, path), git(PUPPET_MIRROR, 'show', "7.23.0:#{path}"))
      end
    end
    out = File.join(tmp, 'out')
    system('python3', SNIPPETS, File.join(tmp, 'spec'), out, exception: true)
    index = JSON.parse(File.read(File.join(out, 'index.json')))
    index.each { |e| write(File.join(dir, "#{e['id']}.pp"), File.read(File.join(out, "#{e['id']}.pp"))) }
    write(File.join(dir, 'index.json'),
          JSON.pretty_generate(index.map { |e| e.reject { |k, _| k == 'code' } }) + "\n")
  ensure
    FileUtils.rm_rf(tmp)
  end
end

# Fenced (``` or ```puppet) and indented code blocks of the language specification.
def gather_specifications
  dir = File.join(INPUTS, 'specifications')
  FileUtils.rm_rf(dir)
  files = git(SPECS_MIRROR, 'ls-tree', '-r', '--name-only', 'HEAD', 'language').split("\n").grep(/\.md\z/)
  files.each do |path|
    text = git(SPECS_MIRROR, 'show', "HEAD:#{path}")
    blocks = []
    lines = text.split("\n", -1)
    i = 0
    while i < lines.size
      line = lines[i]
      if line =~ /\A```\s*(\w*)\s*\z/
        lang = Regexp.last_match(1)
        body = []
        i += 1
        while i < lines.size && lines[i] !~ /\A```\s*\z/
          body << lines[i]
          i += 1
        end
        blocks << body.join("\n") if ['', 'puppet'].include?(lang)
      elsif line =~ /\A(    |\t)\S/ && (i.zero? || lines[i - 1].strip.empty?)
        body = []
        while i < lines.size && (lines[i] =~ /\A(    |\t)/ || (lines[i].strip.empty? && lines[i + 1].to_s =~ /\A(    |\t)/))
          body << lines[i].sub(/\A(    |\t)/, '')
          i += 1
        end
        blocks << body.join("\n")
        next
      end
      i += 1
    end
    base = File.basename(path, '.md')
    blocks.each_with_index do |b, n|
      next if b.strip.empty?
      write(File.join(dir, format('%s-%03d.pp', base, n + 1)), b + "\n")
    end
  end
end

# The string literals passed to parse(...), dump(parse(...)),
# evaluate(literal(...)) and friends in puppetlabs/puppet 7.23.0's parser
# and evaluator specs (one-line Ruby string literals without interpolation;
# the EPP parser's spec gives .epp inputs).
PARSE_CALL = /\b(?:parse|parser\.parse_string|parse_string|evaluate_string|tokens_scanned_from|epp_parse|parse_epp)\(\s*("(?:[^"\\#]|\\.|#(?!\{))*"|'(?:[^'\\]|\\.)*')/

def gather_parser_specs
  dir = File.join(INPUTS, 'parser-specs')
  FileUtils.rm_rf(dir)
  index = []
  %w[spec/unit/pops/parser spec/unit/pops/evaluator].each do |sub|
    git(PUPPET_MIRROR, 'ls-tree', '-r', '--name-only', '7.23.0', sub).split("\n").grep(/_spec\.rb\z/).each do |path|
      epp = path.include?('epp')
      git(PUPPET_MIRROR, 'show', "7.23.0:#{path}").split("\n").each_with_index do |line, n|
        line.scan(PARSE_CALL) do |(literal)|
          code = eval(literal) # a plain string literal: no interpolation (checked by the pattern)
          next if code.strip.empty? || index.any? { |e| e['code'] == code && e['epp'] == epp }
          id = format('%04d', index.size + 1)
          index << { 'id' => id, 'file' => path, 'line' => n + 1, 'epp' => epp, 'code' => code }
          write(File.join(dir, id + (epp ? '.epp' : '.pp')), code)
        end
      end
    end
  end
  write(File.join(dir, 'index.json'), JSON.pretty_generate(index.map { |e| e.reject { |k, _| k == 'code' } }) + "\n")
end

# Small deterministic mutations (a punctuation character deleted, inserted
# or replaced) of the handwritten and module inputs: mostly syntax errors,
# to compare error messages and positions far beyond the handwritten ones.
MUTANT_CHARS = ['{', '}', '(', ')', '[', ']', ',', ';', ':', '=', '>', '|', '$', '"', "'", '-', '@', '?', '!', '.', '*', '<', ' ', "\n"].freeze

def gather_mutants(count = 400)
  dir = File.join(INPUTS, 'mutants')
  FileUtils.rm_rf(dir)
  # A fixed set of sources, so that new handwritten inputs leave the mutants as they are.
  handwritten = %w[calls conditionals definitions heredoc lambdas literals misc precedence resources strings]
  sources = (handwritten.map { |n| File.join(INPUTS, 'handwritten', "#{n}.pp") } +
             Dir.glob(File.join(INPUTS, 'modules', '**', '*.pp'))).sort
  rng = Random.new(16)
  count.times do |n|
    text = File.read(sources[rng.rand(sources.size)], encoding: 'utf-8')
    next if text.empty?
    at = rng.rand(text.size)
    case rng.rand(3)
    when 0 then text = text[0...at] + text[(at + 1)..]
    when 1 then text = text[0...at] + MUTANT_CHARS[rng.rand(MUTANT_CHARS.size)] + text[at..]
    else text = text[0...at] + MUTANT_CHARS[rng.rand(MUTANT_CHARS.size)] + text[(at + 1)..]
    end
    write(File.join(dir, format('%04d.pp', n + 1)), text)
  end
end

def error_data(e)
  message = e.respond_to?(:basic_message) ? e.basic_message : e.message
  {
    'message' => message.sub(/ \((?:file: [^,]*, )?line: \d+(?:, column: \d+)?\)\z/, ''),
    'line' => e.respond_to?(:line) ? e.line : nil,
    'column' => e.respond_to?(:pos) ? e.pos : nil,
    'code' => e.respond_to?(:issue_code) && e.issue_code ? e.issue_code.to_s : nil,
  }
end

# Every diagnostic Puppet's validator (ValidatorFactory_4_0) reports on a
# parsed model, in order: severity (error, warning, deprecation), issue
# code, message, line and column.
def diagnostics(model)
  acceptor = Puppet::Pops::Validation::Acceptor.new
  Puppet::Pops::Validation::ValidatorFactory_4_0.new.validator(acceptor).validate(model)
  acceptor.diagnostics.map do |d|
    {
      'severity' => d.severity.to_s,
      'code' => d.issue.issue_code.to_s,
      'message' => d.issue.format(d.arguments),
      'line' => d.source_pos ? d.source_pos.line : nil,
      'column' => d.source_pos ? d.source_pos.pos : nil,
    }
  end
rescue StandardError => e
  [{ 'severity' => 'crash', 'message' => e.class.to_s }]
end

def record(path)
  source = File.read(path, encoding: 'utf-8')
  epp = path.end_with?('.epp')
  result = {}
  parser = epp ? Puppet::Pops::Parser::EppParser.new : Puppet::Pops::Parser::Parser.new
  begin
    model = parser.parse_string(source, nil)
    result['diagnostics'] = diagnostics(model.model)
    pn = Puppet::Pops::Model::PNTransformer.transform(model)
    result['pn'] = JSON.dump(pn.to_data)
  rescue Puppet::ParseError => e
    result['syntax_error'] = error_data(e)
    return result
  rescue StandardError => e
    result['crash'] = "#{e.class}: #{e.message}"
    return result
  end
  begin
    checker = epp ? Puppet::Pops::Parser::EvaluatingParser::EvaluatingEppParser.new : Puppet::Pops::Parser::EvaluatingParser.new
    checker.parse_string(source, nil)
  rescue Puppet::ParseError => e
    result['validation'] = error_data(e)
  rescue StandardError => e
    result['validation'] = { 'message' => "#{e.class}: #{e.message}" }
  end
  result
end

if ARGV.include?('--gather')
  gather_modules
  gather_puppet_repo
  gather_spec_snippets if File.exist?(SNIPPETS)
  gather_specifications
  gather_parser_specs
  gather_mutants
end

confdir = Dir.mktmpdir('record-puppet-parser-conf-')
at_exit { FileUtils.rm_rf(confdir) }
Puppet.initialize_settings(['--confdir', confdir])
recorded = {}
Dir.glob(File.join(INPUTS, '**', '*.{pp,epp}')).sort.each do |path|
  recorded[path.sub("#{INPUTS}/", '')] = record(path)
end
write(File.join(FIXTURES, 'recorded.json'), JSON.pretty_generate(recorded) + "\n")
counts = recorded.values.group_by { |r| r.key?('syntax_error') ? 'syntax error' : r.key?('crash') ? 'crash' : r.key?('validation') ? 'validation error' : 'ok' }
puts "#{recorded.size} inputs: " + counts.map { |k, v| "#{v.size} #{k}" }.join(', ')
