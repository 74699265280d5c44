# Records Puppet 7.23's catalog for every spec snippet of the Puppet language
# corpus (test/fixtures/puppet-lang/inputs/spec-snippets/NNNN.pp, the
# manifests embedded in puppetlabs/puppet 7.23.0's specs) into
# test/fixtures/puppet-compile/snippets/NNNN.json, which
# test/puppet/compile/snippets.test.ts compares with tend's compile.
#
#   nice -n 10 ruby scripts/record-puppet-snippets.rb [--out DIR] [--in DIR] [--modulepath DIR] [ID...]
#
# (--out writes elsewhere: the live conformance test records into a temp dir.
# --in reads the manifests ID.pp of another directory, every *.pp of it when
# it has no index.json; --modulepath gives the compiles a module path:
# test/fixtures/puppet-compile/features is recorded with
# `--in test/fixtures/puppet-compile/features/inputs --out
# test/fixtures/puppet-compile/features/recorded --modulepath
# test/fixtures/puppet-compile/modules`.)
#
# All snippets compile in ONE Ruby process (Puppet's start-up costs ~3 s) in
# a scratch confdir under the system temp dir, removed at the end. Each
# snippet is the `code` of an environment `production` with an empty module
# path, compiled for node `testnode` with the fixed Debian 12 facts of
# test/fixtures/puppet-compile/facts/testnode.json, trusted data as Puppet
# gives a local node (authenticated 'local', certname from the clientcert
# fact) and server facts holding only the environment; virtual and exported
# resources are filtered out as `puppet catalog compile` does.
#
# Each NNNN.json holds the snippet's source (spec file and line), then either
# "catalog" (Puppet's catalog JSON without version, catalog_uuid and code_id,
# which change on every compile) or "error" (Puppet's message, as
# `puppet catalog compile` prints it after "Error: "), and "messages": every
# notice, warning and error Puppet logged while compiling, with their source
# (`Scope(Class[main])` for notice()), except the "Compiled catalog" line.
$VERBOSE = nil
require 'puppet'
require 'json'
require 'timeout'
require 'tmpdir'
require 'fileutils'

ROOT = File.expand_path('..', __dir__)
DEFAULT_SNIPDIR = File.join(ROOT, 'test', 'fixtures', 'puppet-lang', 'inputs', 'spec-snippets')
FIXTURES = File.join(ROOT, 'test', 'fixtures', 'puppet-compile')
args = ARGV.dup
opts = {}
while %w[--out --in --modulepath].include?(args[0])
  key = args.shift
  opts[key] = File.expand_path(args.shift)
end
OUTDIR = opts['--out'] || File.join(FIXTURES, 'snippets')
SNIPDIR = opts['--in'] if opts['--in']
MODULEPATH = opts['--modulepath']
SNIPDIR = DEFAULT_SNIPDIR unless defined?(SNIPDIR)
FACTS_TEXT = File.read(File.join(FIXTURES, 'facts', 'testnode.json'))

scratch = Dir.mktmpdir('tend-record-snippets-')
at_exit { FileUtils.rm_rf(scratch) }
%w[etc var code/environments/production/manifests code/environments/production/modules].each do |d|
  FileUtils.mkdir_p(File.join(scratch, d))
end
File.write(File.join(scratch, 'etc', 'puppet.conf'), <<~CONF)
  [main]
  vardir = #{scratch}/var
  codedir = #{scratch}/code
  logdir = #{scratch}/var/log
  rundir = #{scratch}/var/run
  publicdir = #{scratch}/var/public
  ssldir = #{scratch}/etc/ssl
  vendormoduledir = #{scratch}/vendor_modules
  basemodulepath = #{scratch}/code/modules
  cadir = #{scratch}/etc/ca
CONF

Puppet.initialize_settings(['--confdir', File.join(scratch, 'etc'), '--log_level', 'notice', '--environment', 'production'])
Puppet::ApplicationSupport.push_application_context(Puppet::Util::RunMode[:server])
Puppet::Util::Log.level = :notice
FileUtils.mkdir_p(OUTDIR)

index_file = File.join(SNIPDIR, 'index.json')
index = if File.exist?(index_file)
          JSON.parse(File.read(index_file))
        else
          Dir.children(SNIPDIR).select { |f| f.end_with?('.pp') }.sort
             .map { |f| { 'id' => f.delete_suffix('.pp'), 'file' => f, 'line' => 1 } }
        end
only = args
envdir = File.join(scratch, 'code', 'environments', 'production')
summary = Hash.new(0)
index.each do |entry|
  id = entry['id']
  next unless only.empty? || only.include?(id)
  code = File.read(File.join(SNIPDIR, "#{id}.pp"))
  out = { 'id' => id, 'source' => "#{entry['file']}:#{entry['line']}" }
  logs = []
  coll = Puppet::Test::LogCollector.new(logs)
  Puppet::Util::Log.newdestination(coll)
  begin
    Puppet[:code] = code
    env = Puppet::Node::Environment.create(:production, [MODULEPATH || File.join(envdir, 'modules')], File.join(envdir, 'manifests'))
    node = Puppet::Node.new('testnode', :environment => env)
    node.fact_merge(Puppet::Node::Facts.new('testnode', JSON.parse(FACTS_TEXT)['values']))
    node.trusted_data = { 'authenticated' => 'local', 'certname' => 'testnode', 'extensions' => {},
                          'hostname' => 'testnode', 'domain' => nil, 'external' => {} }
    node.add_server_facts({})
    Puppet.override(:current_environment => env, :environments => Puppet::Environments::Static.new(env)) do
      Timeout.timeout(20) do
        cat = Puppet::Parser::Compiler.compile(node).filter { |r| r.virtual? }
        h = cat.to_data_hash
        %w[version catalog_uuid code_id].each { |k| h.delete(k) }
        out['catalog'] = h
      end
    end
    summary['catalog'] += 1
  rescue Exception => e # rubocop:disable Lint/RescueException -- a snippet may raise anything
    raise if e.is_a?(Interrupt)
    out['error'] = e.message
    summary['error'] += 1
  ensure
    Puppet::Util::Log.close(coll)
  end
  out['messages'] = logs.select { |l| %i[notice warning err].include?(l.level) }
                        .reject { |l| l.message.to_s.start_with?('Compiled catalog') }
                        .map { |l| { 'level' => l.level.to_s, 'source' => l.source.to_s, 'message' => l.message.to_s } }
  File.write(File.join(OUTDIR, "#{id}.json"), JSON.pretty_generate(out) + "\n")
end
puts summary.inspect
